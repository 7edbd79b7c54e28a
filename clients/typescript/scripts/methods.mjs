// Prints, as JSON, what each method of the client sends: the REST route it calls and the
// fields it can fill (its parameters, and the members of an options object, snake_cased as
// the wire names them), with the value it sends when the caller leaves a field out (null:
// the server's default). graphmem's Python suite holds this against the REST schema and
// graphmem/operations.py, field by field (tests/integration/test_operation_parameters.py).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..");
const file = join(root, "src", "index.ts");
// the options' types are made from the generated schema: the checker resolves them
const program = ts.createProgram([file], {
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true,
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(file);
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function routeOf(body) {
  let route = null;
  const visit = (node) => {
    if (route === null && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)
        && node.expression.expression.getText(source) === "this.api"
        && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
      route = `${node.expression.name.text} ${node.arguments[0].text}`;
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return route;
}

function leftOut(body) {
  // `options.x ?? value` and `what.x ?? value`: what is sent when the caller leaves x out
  const found = {};
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken
        && ts.isPropertyAccessExpression(node.left)) {
      const right = node.right;
      const value = right.kind === ts.SyntaxKind.NullKeyword ? null
        : right.kind === ts.SyntaxKind.TrueKeyword ? true
        : right.kind === ts.SyntaxKind.FalseKeyword ? false
        : ts.isNumericLiteral(right) ? Number(right.text)
        : ts.isStringLiteral(right) ? right.text : `<${right.getText(source)}>`;
      found[snake(node.left.name.text)] = value;
    }
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

const methods = {};
ts.forEachChild(source, (node) => {
  if (!ts.isClassDeclaration(node) || node.name?.text !== "Graphmem") return;
  for (const member of node.members) {
    if (!ts.isMethodDeclaration(member) || !member.body) continue;
    const fields = [];
    for (const parameter of member.parameters) {
      // an options object (a type literal, or a type made from the schema): its members
      const type = checker.getTypeAtLocation(parameter);
      const options = (type.flags & ts.TypeFlags.Object) !== 0
        && type.getSymbol()?.getName() !== "Array";
      if (options) {
        for (const m of checker.getPropertiesOfType(type)) fields.push(snake(m.getName()));
      } else {
        fields.push(snake(parameter.name.getText(source)));
      }
    }
    methods[member.name.getText(source)] = {
      route: routeOf(member.body), fields, left_out: leftOut(member.body),
    };
  }
});
process.stdout.write(JSON.stringify(methods, null, 1) + "\n");
