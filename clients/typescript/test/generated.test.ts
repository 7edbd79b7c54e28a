// The committed types are what openapi-typescript makes of the committed schema: a schema
// exported again (`python -m graphmem.serve.openapi`; the Python suite checks that it is the
// server's) without `npm run generate` fails here.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const root = join(import.meta.dirname, "..", "..");

test("src/schema.ts is generated from openapi.json", () => {
  const out = join(mkdtempSync(join(tmpdir(), "graphmem-ts-")), "schema.ts");
  execFileSync(join(root, "node_modules", ".bin", "openapi-typescript"),
    [join(root, "openapi.json"), "--output", out, "--default-non-nullable", "false"], { stdio: "ignore" });
  assert.equal(readFileSync(join(root, "src", "schema.ts"), "utf8"), readFileSync(out, "utf8"),
    "the client is stale: run `npm run generate` in clients/typescript");
});
