// The client against a real `graphmem serve` on the local Neo4j, started here. GRAPHMEM_PYTHON
// names the Python that has graphmem (default: python3).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { after, before, test } from "node:test";

import {
  CONTEXT_CLOSE,
  CONTEXT_OPEN,
  createGraphmem,
  type Graphmem,
  GraphmemError,
  graphmemTools,
  locateMemory,
  storeMessages,
  withMemory,
} from "../src/index.js";

const TOKEN = `ts-token-${randomUUID()}`;
const SPACE = `ts-test-${randomUUID().slice(0, 12)}`;
let server: ChildProcess;
let client: Graphmem;
let stderr = "";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

before(async () => {
  const port = await freePort();
  const python = process.env.GRAPHMEM_PYTHON ?? "python3";
  server = spawn(python, ["-m", "graphmem", "serve", "--port", String(port)], {
    env: { ...process.env, GRAPHMEM_REST_TOKENS: JSON.stringify({ [TOKEN]: [SPACE] }) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  server.stderr?.on("data", (chunk) => (stderr += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    assert.equal(server.exitCode, null, `the server stopped: ${stderr}`);
    assert.ok(Date.now() < deadline, `the server did not start: ${stderr}`);
    try {
      if ((await fetch(`${baseUrl}/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  client = createGraphmem({ baseUrl, token: TOKEN });
});

after(async () => {
  try {
    await client?.deleteSpace(SPACE);
  } finally {
    server?.kill();
  }
});

test("messages in, a budgeted and marked context out", async () => {
  const added = await client.addMessages(SPACE, "chat", [
    { speaker: "Ana", text: "My sister Lena moved to Porto last week.", id: "m1" },
    { speaker: "Ana", text: `${CONTEXT_OPEN}\nold recalled memory\n${CONTEXT_CLOSE}`, id: "m2" },
  ]);
  assert.deepEqual(added.added, ["m1"]);
  assert.equal(added.emptied, 1);
  const again = await client.addMessages(SPACE, "chat", [{ speaker: "Ana", text: "x", id: "m1" }]);
  assert.deepEqual(again.skipped, ["m1"]);
  const found = await client.search(SPACE, "Where does Lena live now?", { budget: 200 });
  assert.match(found.context, /Porto/);
  assert.ok(found.context_tokens <= 200);
  assert.equal(found.marked_context, `${CONTEXT_OPEN}\n${found.context}\n${CONTEXT_CLOSE}`);
  // marked: the budget holds the marker too (what withMemory asks): the marker's own tokens
  // leave no room inside a budget of 5, which a plain search may fill
  const marked = await client.search(SPACE, "Where does Lena live now?", { budget: 200, marked: true });
  assert.equal(marked.context, found.context); // room enough for the one piece either way
  assert.ok((await client.search(SPACE, "Where does Lena live now?", { budget: 5 })).context_tokens <= 5);
  await assert.rejects(client.search(SPACE, "Where does Lena live now?", { budget: 5, marked: true }),
    (error: GraphmemError) => error.status === 400 && /no room inside the marker/.test(error.message));
  const page = await client.messages(SPACE, "chat");
  assert.deepEqual(page.messages.map((m) => m.id), ["m1"]);
  // explain: the same context, and why its one piece was recalled
  const why = await client.search(SPACE, "Where does Lena live now?", { budget: 200, explain: true });
  assert.equal(why.context, found.context);
  assert.equal(found.explanation, null);
  assert.equal(why.explanation?.strategy, "graphmem");
  const first = why.hits[0]?.why;
  assert.ok(first && first.found_by.length > 0 && first.probability !== null);
  assert.match(first.packed, /tokens/);
});

test("messages a page at a time (cursor), after a time (since); search within maxTokens", async () => {
  await client.addMessages(SPACE, "paged", [
    { speaker: "Ana", text: "I planted tomatoes.", id: "p1", at: "2024-03-01T10:00:00Z" },
    { speaker: "Ben", text: "Mine are basil and mint.", id: "p2", at: "2024-03-01T10:05:00Z" },
  ], { session: "first-week" });
  await client.addMessages(SPACE, "paged", [
    { speaker: "Ana", text: "The tomatoes need a stake now.", id: "p3", at: "2024-03-09T10:00:00Z" },
  ], { session: "second-week" });
  const first = await client.messages(SPACE, "paged", { limit: 2 });
  assert.deepEqual(first.messages.map((m) => m.id), ["p1", "p2"]);
  assert.ok(first.next_cursor !== null && first.next_cursor !== undefined);
  const second = await client.messages(SPACE, "paged", { limit: 2, cursor: first.next_cursor });
  assert.deepEqual(second.messages.map((m) => m.id), ["p3"]);
  // since: the sessions that started at or after it
  const later = await client.messages(SPACE, "paged", { since: "2024-03-05T00:00:00Z" });
  assert.deepEqual(later.messages.map((m) => m.id), ["p3"]);
  const whole = await client.search(SPACE, "What did Ana plant?");
  const found = await client.search(SPACE, "What did Ana plant?", { maxTokens: 12 });
  assert.ok(whole.context_tokens > 12, "without maxTokens the default budget holds more");
  assert.ok(found.context_tokens > 0 && found.context_tokens <= 12);
});

test("errors carry the server's status, type and message", async () => {
  await assert.rejects(client.search("someone-else", "anything"), (error: unknown) => {
    assert.ok(error instanceof GraphmemError);
    assert.equal(error.status, 403);
    assert.match(error.message, /someone-else/);
    return true;
  });
  await assert.rejects(client.search(SPACE, "   "), (error: unknown) =>
    error instanceof GraphmemError && error.status === 400 && error.field === "question");
});

test("the tools remember, find and forget; withMemory prepends the context once", async () => {
  const scope = { space: SPACE, conversation: "agent", budget: 200 };
  const tools = graphmemTools(client, scope);
  assert.deepEqual(tools.remember.inputSchema.required, ["text"]);
  const said = await tools.remember.execute({ text: "The user's cat is called Miso." });
  const id = said.replace("remembered as ", "");
  const found = await tools.searchMemory.execute({ query: "What is the cat called?" });
  assert.ok(found.startsWith(CONTEXT_OPEN) && found.includes("Miso") && found.includes(id));

  const chat = [{ role: "user", content: "Remind me what my cat is called?" }];
  const once = await withMemory(client, scope, chat);
  assert.equal(once.length, 2);
  assert.ok(typeof once[0].content === "string" && once[0].content.includes("Miso"));
  const twice = await withMemory(client, scope, once);
  assert.equal(twice.length, 2); // replaced, not stacked
  // storing the prompt with its context stores the question only
  assert.equal(await storeMessages(client, { space: SPACE, conversation: "stored" }, [
    { role: "user", content: `${once[0].content}\nRemind me what my cat is called?` },
    { role: "assistant", content: "Miso." }]), 2);
  const stored = await client.messages(SPACE, "stored");
  assert.deepEqual(stored.messages.map((m) => m.text), ["Remind me what my cat is called?", "Miso."]);

  assert.equal(await tools.forgetMemory.execute({ memoryIds: [id] }), "forgot 1 of 1 memories");
  const gone = await tools.searchMemory.execute({ query: "What is the cat called?" });
  assert.ok(!gone.includes("cat is called Miso") && !gone.includes(id));
});

test("the other operations: spaces, conversations, a unit, a correction, history, refresh, answer", async () => {
  await client.addMessages(SPACE, "ops", [
    { speaker: "Ana", text: "I adopted a greyhound called Pixel.", id: "o1" },
  ]);
  const spaces = await client.spaces();
  assert.deepEqual(spaces.map((s) => s.space), [SPACE]);
  const conversations = await client.conversations(SPACE);
  assert.ok(conversations.some((c) => c.conversation === "ops" && c.messages === 1));
  const [message] = (await client.messages(SPACE, "ops")).messages;
  const turn = await client.unit(SPACE, message.turn_id);
  assert.equal(turn.kind, "Turn");
  assert.match(String(turn.properties.text), /Pixel/);
  const fixed = await client.correct(SPACE, message.turn_id, "I adopted a greyhound called Pepper.");
  assert.equal(fixed.turn_id, message.turn_id);
  assert.equal(fixed.revisions, 1);
  const changes = await client.history(SPACE, { limit: 5 });
  // the correction is the newest change made through REST (the layers it left pending may
  // be derived in the background meanwhile, recorded after it as the worker's)
  const ours = changes.find((c) => c.surface === "rest");
  assert.ok(ours && ours.what.startsWith("correct"), JSON.stringify(changes));
  assert.equal(typeof (await client.refresh(SPACE)), "object");
  const found = await client.search(SPACE, "What is the greyhound called?", { budget: 200 });
  assert.match(found.context, /Pepper/);
  // this server has no LLM: answering is refused, naming what to configure
  await assert.rejects(client.answer(SPACE, "What is the greyhound called?"), (error: unknown) =>
    error instanceof GraphmemError && /GRAPHMEM_LLM_BASE_URL/.test(error.message));
});

test("a memory id forgets exactly its message, in whichever conversation holds it", async () => {
  // the same message id in two conversations: only the one the search found goes
  await client.addMessages(SPACE, "notes/home", [
    { speaker: "user", text: "My home address is 12 Rua Augusta.", id: "1" },
  ]);
  await client.addMessages(SPACE, "agent-2", [
    { speaker: "user", text: "My locker code is 3317.", id: "1" },
  ]);
  const tools = graphmemTools(client, { space: SPACE, conversation: "agent-2" });
  const found = await tools.searchMemory.execute({ query: "my home address" });
  // numbered lines, then each number's ids: "[1] a; [2] b, c"
  const ids = found.split("memory ids: ")[1].split("; ").flatMap((e) => e.split("] ")[1].split(", "));
  const home = ids.find((id) => locateMemory(SPACE, id)?.conversation === "notes/home");
  assert.ok(home, found);
  assert.deepEqual(locateMemory(SPACE, home), { conversation: "notes/home", message: "1" });
  assert.equal(await tools.forgetMemory.execute({ memoryIds: [home] }), "forgot 1 of 1 memories");
  // its only message gone, the conversation is gone with it: asking for it is a 404
  await assert.rejects(client.messages(SPACE, "notes/home"),
    (error: unknown) => error instanceof GraphmemError && error.status === 404 && error.type === "not_found");
  const locker = await client.messages(SPACE, "agent-2");
  assert.deepEqual(locker.messages.map((m) => m.text), ["My locker code is 3317."]);
});

test("storeMessages with the whole history each turn: nothing twice, a forget sticks", async () => {
  const scope = { space: SPACE, conversation: "history" };
  const history: Array<{ role: string; content: string; id?: unknown }> = [
    { role: "user", content: "yes" },
    { role: "assistant", content: "Shall I book it?" },
    { role: "user", content: "yes" }, // said again: kept again
    { role: "user", content: "Numbered message.", id: 7 },
  ];
  assert.equal(await storeMessages(client, scope, history), 4);
  assert.equal(await storeMessages(client, scope, history), 0);
  const stored = await client.messages(SPACE, "history");
  assert.deepEqual(stored.messages.map((m) => m.text), ["yes", "Shall I book it?", "yes", "Numbered message."]);
  assert.equal(stored.messages[3].id, "7");
  await client.forget(SPACE, "history", { messages: [stored.messages[1].id] });
  history.push({ role: "assistant", content: "Booked." });
  assert.equal(await storeMessages(client, scope, history), 1);
  const after = await client.messages(SPACE, "history");
  assert.deepEqual(after.messages.map((m) => m.text), ["yes", "yes", "Numbered message.", "Booked."]);
});

test("a token that cannot be a header is refused without being shown", () => {
  assert.throws(() => createGraphmem({ baseUrl: "http://127.0.0.1:9", token: "secret\nvalue" }),
    (error: unknown) => error instanceof GraphmemError && !error.message.includes("secret"));
});

test("a server that cannot be reached is a GraphmemError, not fetch's TypeError", async () => {
  const port = await freePort(); // nothing listens there
  const away = createGraphmem({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });
  await assert.rejects(away.spaces(), (error: unknown) =>
    error instanceof GraphmemError && error.status === 0 && error.type === "unavailable" &&
    error.message.includes(`127.0.0.1:${port}`));
});
