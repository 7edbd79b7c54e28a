"""The scenes layer of the graph (CAST): characters, scenes and character profiles.

Views (:mod:`views`) are grouped into scenes along each character's stream
(:mod:`grouping`). The layer writes a ``Character`` per speaker and person
mentioned (per space; a speaker's is linked to its ``Speaker`` by ``SPEAKS_AS``), a ``Scene``
per scene (summary, time span, place, participants, embedding; ``FROM_TURN`` its turns;
``(Character)-[:IN_SCENE {role}]->(Scene)``) and a ``Profile`` per character and conversation
(``HAS_PROFILE``; ``FEATURES {order, role}`` its scenes; embedded). A view's topic vector is
the mean of its turns' embeddings, which the turns layer computed, and so is a scene's own
vector: the length-1 mean of its turns' vectors, not a model pass over its summary (it
measured level with the summary's on the leave-one-dataset-out matrix, ``docs/deploy.md``).
With an LLM each scene's summary is one call; without one (or where a reply fails) it is
extractive.

Re-ingesting a conversation with a session appended rewrites the scenes it extends, and
writes only the scene vectors whose turns changed and embeds only profiles whose text did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from graphmem.config import Settings
from graphmem.ids import part, speaker_id
from graphmem.ingest.embedding_rows import (
    composed_hash,
    mean_vector,
)
from graphmem.ingest.layer import Job, Joins, Layer, LayerContext, LayerResult, Owns, VectorKind
from graphmem.ingest.layers.scenes.grouping import (
    Scene,
    SceneConfig,
    SceneOptions,
    aggregate,
    header,
    profile,
    summary,
    title,
    view_vectors,
)
from graphmem.ingest.layers.scenes.views import build_views, turn_facts
from graphmem.ingest.layers.turns import vector_hash
from graphmem.prompts import scene_summary
from graphmem.store import Tx
from graphmem.text import Cast, character_key, display_name, speaker_aliases, turn_line


def character_id(space: str, key: str) -> str:
    return f"{part(space)}/%{part(key)}"


@dataclass
class ScenePayload:
    characters: list[dict[str, Any]] = field(default_factory=list)
    scenes: list[dict[str, Any]] = field(default_factory=list)
    profiles: list[dict[str, Any]] = field(default_factory=list)
    scene_embeddings: list[dict[str, Any]] = field(default_factory=list)
    profile_embeddings: list[dict[str, Any]] = field(default_factory=list)
    reused: int = 0
    fallbacks: list[str] = field(default_factory=list)


class SceneLayer(Layer[ScenePayload]):
    name = "scenes"
    needs = ("turns",)
    reads = ("ingest/turns/turn_vectors", "ingest/scenes/space_characters",
             "ingest/scenes/scene_embedding_hashes")
    writes = ("ingest/scenes/merge_characters", "ingest/scenes/merge_scenes",
              "ingest/scenes/merge_profiles", "ingest/set_vectors")
    prunes = ("ingest/scenes/prune_scenes", "ingest/scenes/prune_characters")
    vectors = (VectorKind("Scene", composed=True), VectorKind("Profile"))
    owns: ClassVar[Owns] = {
        "Character": ("key", "name"),
        "Scene": ("conversation_id", "source_ids", "embedding"),
        "Profile": ("text", "conversation_id", "source_ids", "embedding")}
    joins: ClassVar[Joins] = {
        "SPEAKS_AS": (("Character", "Speaker"),),
        "HAS_SCENE": (("Conversation", "Scene"),),
        "IN_SCENE": (("Character", "Scene"),),
        "HAS_PROFILE": (("Character", "Profile"),),
        "FEATURES": (("Profile", "Scene"),)}
    unsourced = ("Character",)  # one per speaker, in every scene it is part of
    options_model = SceneOptions

    def __init__(self, context: LayerContext, config: SceneConfig | None = None) -> None:
        super().__init__(context)
        self.config = config or SceneConfig.of(self.read_options(context.settings))

    @classmethod
    def fingerprint(cls, settings: Settings) -> str:
        """Scene vectors are their turns' mean (they embedded the summary before), so spaces
        evaluated with summary vectors are not reused."""
        return "scene-vectors:turn-mean"

    def prepare(self, job: Job) -> ScenePayload:
        space, conv, cid = job.space, job.conversation, job.conversation_id
        handed = job.handoff("turns")
        vectors = {k: np.asarray(v, dtype=np.float32) for k, v in
                   handed.every_vector(self.store, job, self.embedder).items()}
        called = speaker_aliases((t.speaker, t.text) for s in conv.sessions for t in s.turns)
        cast = Cast([display_name(s) for s in conv.speakers],
                    aliases={display_name(s): names for s, names in called.items()})
        for row in self.store.read("ingest/scenes/space_characters", space=space):
            cast.names.setdefault(row["key"], row["name"])
        views = build_views(conv, turn_facts(conv), cast, self.config.window)
        scenes = aggregate(views, view_vectors(views, vectors), self.config)
        payload = ScenePayload()
        summaries = self._summaries(scenes, cast.names, payload.fallbacks)
        ids = [f"{cid}#scene~{part(s.key, safe='~')}" for s in scenes]
        members = {ids[i]: [t.source_id for t in s.turns] for i, s in enumerate(scenes)}
        entries: dict[str, list[tuple[int, str]]] = {}
        for i, (scene, text) in enumerate(zip(scenes, summaries, strict=True)):
            roles = scene.roles()
            for key, role in roles.items():
                entries.setdefault(key, []).append((i, role))
            turns = scene.turns
            payload.scenes.append({
                "id": ids[i], "conversation_id": cid, "order": i, "summary": text,
                "title": title(scene),
                "started_at": scene.started_at, "ended_at": scene.ended_at,
                "place": scene.place, "participants": [cast.names[k] for k in roles],
                "source_ids": [t.source_id for t in turns],
                "source_turn_ids": [handed.by_source[t.source_id] for t in turns],
                "roles": [{"character_id": character_id(space, k), "role": r}
                          for k, r in roles.items()]})
        speakers = {character_key(display_name(s)): s for s in conv.speakers}
        for key, featured in entries.items():
            name = cast.names[key]
            payload.characters.append({
                "id": character_id(space, key), "key": key, "name": name,
                "aliases": called.get(speakers[key], []) if key in speakers else [],
                "speaker_id": speaker_id(space, speakers[key]) if key in speakers else None})
            quoted = [scenes[i].central_turns()[0] for i, _ in featured]
            payload.profiles.append({
                "id": f"{cid}#profile~{part(key)}", "character_id": character_id(space, key),
                "conversation_id": cid, "name": name,
                "text": profile(name, [(scenes[i], role) for i, role in featured]),
                "scenes": [{"id": ids[i], "order": n, "role": role}
                           for n, (i, role) in enumerate(featured)],
                "source_ids": [t.source_id for t in quoted],
                "source_turn_ids": [handed.by_source[t.source_id] for t in quoted]})
        self._embed(job, payload, members, vectors)
        return payload

    def _summaries(self, scenes: list[Scene], names: dict[str, str],
                   notes: list[str]) -> list[str]:
        rules = [summary(s, names, self.config) for s in scenes]
        if self.llm is None or not scenes:
            return rules
        requests = [scene_summary.messages(
            header(s, names), "\n".join(turn_line(display_name(t.speaker), t.text,
                                                  t.image_caption) for t in s.turns))
            for s in scenes]
        replies = scene_summary.STEP.run_batch(
            self.llm, requests, accept=_summary_text,
            notes=notes, where=lambda i: f"summary of scene {scenes[i].key}")
        return [f"{header(s, names)}\n{reply}" if reply else rule
                for s, reply, rule in zip(scenes, replies, rules, strict=True)]

    def _embed(self, job: Job, payload: ScenePayload, members: dict[str, list[str]],
               vectors: dict[str, np.ndarray]) -> None:
        """Each scene's vector from its turns' vectors (their hashes name them, as the turns
        layer stored them), each profile's from the model; only where the hash changed."""
        known = {row["id"]: row["embedded_hash"] for row in self.store.read(
            "ingest/scenes/scene_embedding_hashes", space=job.space,
            conversation_id=job.conversation_id)}
        turn_hashes = {t.source_id: vector_hash(self.embedder, t)
                       for s in job.conversation.sessions for t in s.turns}
        for scene_id, sources in members.items():
            wanted = composed_hash(self.embedder, (turn_hashes[m] for m in sources))
            if known.get(scene_id) != wanted:
                payload.scene_embeddings.append({
                    "id": scene_id, "embedded_hash": wanted,
                    "embedding": mean_vector([vectors[m] for m in sources]).tolist()})
        profile_texts = {row["id"]: row["text"] for row in payload.profiles}
        payload.profile_embeddings, kept = self.embed_changed(job.space, profile_texts, known,
                                                              "profile")
        payload.reused = len(members) - len(payload.scene_embeddings) + kept

    def result(self, payload: ScenePayload) -> LayerResult:
        return LayerResult({"characters": len(payload.characters), "scenes": len(payload.scenes),
                            "profiles": len(payload.profiles)},
                           embedded=len(payload.scene_embeddings)
                           + len(payload.profile_embeddings),
                           unchanged=payload.reused, fallbacks=payload.fallbacks)

    def write(self, tx: Tx, job: Job, payload: ScenePayload) -> None:
        space, cid = job.space, job.conversation_id
        tx.run("ingest/scenes/prune_scenes", space=space, conversation_id=cid,
               scenes=[row["id"] for row in payload.scenes],
               profiles=[row["id"] for row in payload.profiles])
        self.write_rows(tx, "ingest/scenes/merge_characters", "characters", payload.characters,
                        space=space)
        self.write_rows(tx, "ingest/scenes/merge_scenes", "scenes", payload.scenes, space=space)
        self.write_rows(tx, "ingest/scenes/merge_profiles", "profiles", payload.profiles,
                        space=space)
        self.write_rows(tx, "ingest/set_vectors", "rows",
                        payload.scene_embeddings + payload.profile_embeddings, space=space)
        tx.run("ingest/scenes/prune_characters", space=space)



def _summary_text(reply: scene_summary.SceneSummaryOutput) -> str:
    text = reply.summary.strip()
    if not text:
        raise ValueError("the summary is empty")
    return text
