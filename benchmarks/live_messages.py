"""Per-message latency of live messages (``Memory.add_messages``), LLM-free.

    python benchmarks/live_messages.py [--mode background|inline] [--pause 0] [--messages 30]

A LoCoMo dev conversation is ingested with every default layer except its last --messages
turns, which then arrive one message at a time in a new session (stamped a minute apart, sent
--pause seconds apart). Prints p50/p95 of the call, the seconds per layer and in the write
transaction, and the time until every derived layer has caught up (background: flush after
the last message; inline: the refresh of the whole-conversation layers). The space is
deleted afterwards. Keep other CPU work off the machine while it runs.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from common import LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.inputs.loaders import parse_file


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--conversation", type=int, default=3, help="conv-42: 629 turns")
    parser.add_argument("--messages", type=int, default=30, help="live messages to time")
    parser.add_argument("--mode", choices=["background", "inline"], default="background")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between messages")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings(live_derive=args.mode)
    conv = parse_file(args.data, "locomo").conversations[args.conversation]
    keep = conv.n_turns - args.messages
    earlier, turns, seen = [], [], 0
    for session in conv.sessions:
        kept = session.turns[: max(0, keep - seen)]
        turns.extend(session.turns[len(kept):])
        seen += len(session.turns)
        if kept:
            earlier.append(session.model_copy(update={"turns": kept}))
    space = f"bench-live-{uuid.uuid4().hex[:8]}"
    start = datetime(2030, 1, 1, 12, 0)  # after every stored session: the messages are new
    with Memory(settings) as memory:
        print(f"warm-up {memory.warm_up():.1f}s")
        began = time.perf_counter()
        memory.ingest([conv.model_copy(update={"sessions": tuple(earlier)})], space=space)
        stored = sum(len(s.turns) for s in earlier)
        print(f"ingested {stored} turns in {time.perf_counter() - began:.0f}s")
        try:
            timings, layers, writes = [], [], []
            for i, turn in enumerate(turns):
                report = memory.add_messages(space, conv.key, [{
                    "speaker": turn.speaker, "text": turn.text, "id": turn.source_id,
                    "image_caption": turn.image_caption,
                    "at": (start + timedelta(minutes=i)).isoformat()}])
                if i:  # the first one opens the session and refreshes the closed one
                    timings.append(report.seconds * 1000)
                    layers.append(report.layers)
                    writes.append(report.write_seconds * 1000)
                else:
                    print(f"first message (opens a session, refreshes {report.refreshed}): "
                          f"{report.seconds:.2f}s")
                time.sleep(args.pause)
            began = time.perf_counter()
            memory.flush()
            memory.refresh(space)
            refresh = time.perf_counter() - began
        finally:
            memory.delete_space(space)
    result = {
        "mode": args.mode, "pause_s": args.pause,
        "conversation": conv.key, "stored_turns": stored, "messages": len(timings),
        "p50_ms": round(float(np.percentile(timings, 50)), 1),
        "p95_ms": round(float(np.percentile(timings, 95)), 1),
        "write_ms_mean": round(float(np.mean(writes)), 1),
        "layer_ms_mean": {name: round(1000 * float(np.mean([lay[name] for lay in layers])), 1)
                          for name in layers[0]},
        "catch_up_s": round(refresh, 2)}
    publish(result, args.out, indent=2)


if __name__ == "__main__":
    main()
