// The TypeScript oracle: which exports of the old release's main entry break consumers of the new.
//
// usage: node ts_oracle.cjs <typescript module dir> <work dir with node_modules/{old,new}-pkg>
//
// The compiler lists the exports of both entry points (resolved from each
// package.json the way a consumer's `import` is, with the "types" condition),
// then type-checks one "old usage" line per export against the new release:
//   values (functions, variables, enums):  typeof New.x  must be assignable to  typeof Old.x
//   classes: every public member of Old.C must exist on New.C with an assignable type
//   types and interfaces: Old.T and New.T must be assignable both ways
// A line with a compiler error is a break. Prints JSON: {removed, broken, unchanged, seconds}.
"use strict";
const path = require("path");
const ts = require(path.resolve(process.argv[2]));
const work = path.resolve(process.argv[3]);
const started = Date.now();

const options = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  target: ts.ScriptTarget.ES2022,
  types: [],
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
};

function program(probeText) {
  const probe = path.join(work, "probe.ts");
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === probe ? probeText : read(file));
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === probe || exists(file);
  return { prog: ts.createProgram([probe], options, host), probe };
}

const header = 'import * as O from "old-pkg";\nimport * as N from "new-pkg";\n';
const first = program(header);
const checker = first.prog.getTypeChecker();
const source = first.prog.getSourceFile(first.probe);
const [oldImport, newImport] = source.statements;
function exportsOf(decl) {
  const moduleSymbol = checker.getSymbolAtLocation(decl.moduleSpecifier);
  if (!moduleSymbol) return new Map();
  const found = new Map();
  for (const sym of checker.getExportsOfModule(moduleSymbol)) {
    found.set(sym.escapedName.toString(), sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym);
  }
  return found;
}
const oldExports = exportsOf(oldImport);
const newExports = exportsOf(newImport);

function typeArgs(sym) {
  const decl = (sym.declarations || []).find((d) => d.typeParameters);
  const count = decl ? decl.typeParameters.length : 0;
  return count ? "<" + Array(count).fill("any").join(", ") + ">" : "";
}

const removed = [];
const lines = [];
const owner = [];
for (const [name, sym] of oldExports) {
  if (name === "default" || name === "__esModule") continue;
  if (!newExports.has(name)) {
    removed.push(name);
    continue;
  }
  const args = typeArgs(sym);
  const newArgs = typeArgs(newExports.get(name));
  const f = sym.flags;
  const checks = [];
  if (f & ts.SymbolFlags.Class) {
    checks.push(`{ let n!: Pick<N.${name}${newArgs}, keyof O.${name}${args}>; let o: Pick<O.${name}${args}, keyof O.${name}${args}> = n; }`);
  } else if (f & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum)) {
    checks.push(`{ let n!: typeof N.${name}; let o: typeof O.${name} = n; }`);
  } else if (f & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
    checks.push(`{ let n!: N.${name}${newArgs}; let o: O.${name}${args} = n; }`);
    checks.push(`{ let o!: O.${name}${args}; let n: N.${name}${newArgs} = o; }`);
  }
  for (const check of checks) {
    lines.push(check);
    owner.push(name);
  }
}
const probeText = header + lines.join("\n") + "\n";
const second = program(probeText);
const broken = new Set();
for (const diagnostic of second.prog.getSemanticDiagnostics(second.prog.getSourceFile(second.probe))) {
  if (diagnostic.start === undefined) continue;
  const line = second.prog.getSourceFile(second.probe).getLineAndCharacterOfPosition(diagnostic.start).line;
  const index = line - 2;
  if (index >= 0 && index < owner.length) broken.add(owner[index]);
}
const checked = new Set(owner);
const unchanged = [...checked].filter((name) => !broken.has(name));
process.stdout.write(
  JSON.stringify({
    removed: removed.sort(),
    broken: [...broken].sort(),
    unchanged: unchanged.sort(),
    old_exports: oldExports.size,
    seconds: (Date.now() - started) / 1000,
  }) + "\n",
);
