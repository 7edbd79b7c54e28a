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
      "memories within a token budget, then the ids of the memories shown.",
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
      if (!found.context) {
        return "(nothing relevant remembered)";
      }
      const ids = [...new Set(found.hits.flatMap((hit) => hit.source_ids))];
      return `${found.marked_context}\n\nmemory ids: ${ids.join(", ")}`;
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
      return `remembered as ${id}`;
    },
  };
  const forgetMemory: MemoryTool<{ memoryIds: string[] }, Schema> = {
    description: "Forget memories of this conversation for good, by the ids the other tools gave.",
    inputSchema: wrapSchema({
      type: "object",
      properties: { memoryIds: { type: "array", items: { type: "string" } } },
      required: ["memoryIds"],
      additionalProperties: false,
    }),
    execute: async ({ memoryIds }) => {
      const done = await client.forget(scope.space, conversation, { messages: memoryIds });
      return `forgot ${done.messages} of ${memoryIds.length} memories`;
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
  const found = await client.search(scope.space, query, {
    budget: scope.budget,
    strategy: scope.strategy,
  });
  if (!found.marked_context) {
    return kept;
  }
  return [{ role: "system", content: found.marked_context }, ...kept];
}

/** Store a conversation's user and assistant text (ids, when the messages carry them). */
export async function storeMessages(
  client: Graphmem,
  scope: MemoryScope,
  messages: ChatMessage[],
): Promise<number> {
  const stored = messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({
      speaker: m.role,
      text: textOf(m),
      ...(typeof m.id === "string" ? { id: m.id } : {}),
    }))
    .filter((m) => m.text.trim());
  if (stored.length === 0) {
    return 0;
  }
  const report = await client.addMessages(scope.space, scope.conversation ?? AGENT_CONVERSATION, stored);
  return report.added.length;
}
