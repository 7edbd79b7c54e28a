/**
 * Helpers in the shape of the Vercel AI SDK: three tools an agent calls (search, remember,
 * forget) and a function that puts the budgeted, marked context in front of a conversation.
 * Nothing here imports the SDK; pass its `jsonSchema` as `wrapSchema` to hand the tools to
 * `generateText({ tools })` as they are.
 */
import type { Graphmem } from "./index.js";
import { CONTEXT_OPEN } from "./index.js";

/** Where an agent's memory lives: a space (the tenant) and the conversation it writes to. */
export interface MemoryScope {
  space: string;
  conversation?: string;
  /** Context tokens per search; the server's default (1000) when left out. */
  budget?: number;
  strategy?: string;
}

export type JsonSchema = {
  type: "object";
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties: false;
};

export interface MemoryTool<Input, Schema> {
  description: string;
  inputSchema: Schema;
  execute: (input: Input) => Promise<string>;
}

/** A chat message as the AI SDK and most chat APIs give it. */
export interface ChatMessage {
  role: string;
  content: string | Array<{ type: string; text?: string }>;
  [key: string]: unknown;
}

const AGENT_CONVERSATION = "agent";

function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") {
    return message.content;
  }
  return message.content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

function newId(): string {
  return `mem-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** One part of a graphmem id, percent-encoded as the server encodes it (every character but
 * letters, digits and `_.-~`). */
function idPart(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The Turn id of a message: a memory id, naming exactly one message of the space. */
export function memoryId(space: string, conversation: string, message: string): string {
  return `${idPart(space)}/${idPart(conversation)}#${idPart(message)}`;
}

/**
 * The conversation and message a memory id (a hit's `source_turn_ids`, what the tools give)
 * names in `space`; null when it is not one (then it is read as a message id of the tools'
 * own conversation). A part too long to be kept whole in the id cannot be read back.
 */
export function locateMemory(
  space: string,
  id: string,
): { conversation: string; message: string } | null {
  const prefix = `${idPart(space)}/`;
  if (!id.startsWith(prefix)) {
    return null;
  }
  const rest = id.slice(prefix.length);
  const [conversation, message, ...more] = rest.split("#");
  if (!conversation || !message || more.length > 0 || rest.includes("/")) {
    return null;
  }
  if (rest.includes("%~")) {
    throw new Error(`memory id ${id} is too long to name its message; forget it by conversation and message id`);
  }
  try {
    return { conversation: decodeURIComponent(conversation), message: decodeURIComponent(message) };
  } catch {
    return null;
  }
}

/** search_memory, remember and forget_memory as tools of the AI SDK's shape. */
export function graphmemTools<Schema = JsonSchema>(
  client: Graphmem,
  scope: MemoryScope,
  wrapSchema: (schema: JsonSchema) => Schema = (schema) => schema as Schema,
) {
  const conversation = scope.conversation ?? AGENT_CONVERSATION;
  const searchMemory: MemoryTool<{ query: string; maxTokens?: number }, Schema> = {
    description:
      "Search long-term memory for what was said before that bears on the query: dated " +
      "memories within a token budget, each numbered, then each number's memory ids.",
    inputSchema: wrapSchema({
      type: "object",
      properties: {
        query: { type: "string", description: "what to recall" },
        maxTokens: { type: "integer", description: "context tokens (optional)" },
      },
      required: ["query"],
      additionalProperties: false,
    }),
    execute: async ({ query, maxTokens }) => {
      const found = await client.search(scope.space, query, {
        budget: maxTokens ?? scope.budget,
        strategy: scope.strategy,
      });
      // the server renders the answer, numbered lines and their ids, within the budget
      return found.readable;
    },
  };
  const remember: MemoryTool<{ text: string }, Schema> = {
    description:
      "Store one fact worth remembering in later conversations, in your own words; " +
      "answers with its memory id.",
    inputSchema: wrapSchema({
      type: "object",
      properties: { text: { type: "string", description: "the fact" } },
      required: ["text"],
      additionalProperties: false,
    }),
    execute: async ({ text }) => {
      const id = newId();
      await client.addMessages(scope.space, conversation, [{ speaker: "assistant", text, id }]);
      return `remembered as ${memoryId(scope.space, conversation, id)}`;
    },
  };
  const forgetMemory: MemoryTool<{ memoryIds: string[] }, Schema> = {
    description: "Forget memories for good, by the ids searchMemory or remember gave.",
    inputSchema: wrapSchema({
      type: "object",
      properties: { memoryIds: { type: "array", items: { type: "string" } } },
      required: ["memoryIds"],
      additionalProperties: false,
    }),
    execute: async ({ memoryIds }) => {
      // each id names one message of one conversation: forget each where it lives
      const byConversation = new Map<string, string[]>();
      for (const id of memoryIds) {
        const found = locateMemory(scope.space, id) ?? { conversation, message: id };
        byConversation.set(found.conversation, [
          ...(byConversation.get(found.conversation) ?? []),
          found.message,
        ]);
      }
      let gone = 0;
      for (const [where, messages] of byConversation) {
        gone += (await client.forget(scope.space, where, { messages })).messages;
      }
      return `forgot ${gone} of ${memoryIds.length} memories`;
    },
  };
  return { searchMemory, remember, forgetMemory };
}

/**
 * `messages` with graphmem's context for the latest user message in front, as one system
 * message (replacing one this function added before, so contexts never stack). The context
 * is wrapped in `<graphmem-context>` tags: storing the conversation later stores it once.
 */
export async function withMemory<M extends ChatMessage>(
  client: Graphmem,
  scope: MemoryScope,
  messages: M[],
): Promise<Array<M | ChatMessage>> {
  const kept = messages.filter(
    (m) => !(m.role === "system" && typeof m.content === "string" && m.content.startsWith(CONTEXT_OPEN)),
  );
  const latest = [...kept].reverse().find((m) => m.role === "user");
  const query = latest ? textOf(latest).trim() : "";
  if (!query) {
    return kept;
  }
  // marked: the budget holds the marker too, so the system message fits it
  const found = await client.search(scope.space, query, {
    budget: scope.budget,
    strategy: scope.strategy,
    marked: true,
  });
  if (!found.marked_context) {
    return kept;
  }
  return [{ role: "system", content: found.marked_context }, ...kept];
}

async function digest(text: string): Promise<string> {
  const bytes = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Store a conversation's user and assistant text; call it with the whole history on every
 * turn. A message keeps its own id (a string or a number); one without an id gets one made
 * from what it says and how many times the same speaker said the same before it in
 * `messages`, so sending the history again stores nothing twice, a repeated "yes" is kept
 * each time, and a forgotten message is not stored again. Returns how many were new.
 */
export async function storeMessages(
  client: Graphmem,
  scope: MemoryScope,
  messages: ChatMessage[],
): Promise<number> {
  const seen = new Map<string, number>();
  const stored = [];
  for (const m of messages) {
    const text = textOf(m);
    if ((m.role !== "user" && m.role !== "assistant") || !text.trim()) {
      continue;
    }
    let id: string;
    if (typeof m.id === "string" && m.id) {
      id = m.id;
    } else if (typeof m.id === "number" && Number.isFinite(m.id)) {
      id = String(m.id);
    } else {
      const said = `${m.role}\n${text}`;
      const nth = (seen.get(said) ?? 0) + 1;
      seen.set(said, nth);
      id = `h-${await digest(said)}-${nth}`;
    }
    stored.push({ speaker: m.role, text, id });
  }
  if (stored.length === 0) {
    return 0;
  }
  const report = await client.addMessages(scope.space, scope.conversation ?? AGENT_CONVERSATION, stored);
  return report.added.length;
}
