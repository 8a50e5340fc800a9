// The TypeScript oracle: which exports of the old release's main entry break consumers of the new.
//
// usage: node ts_oracle.cjs <typescript module dir> <work dir with node_modules/{old,new}-pkg>
//
// The compiler lists the exports of both entry points (resolved from each
// package.json the way a consumer's `import` is), then type-checks "old usage"
// lines per export against the new release. A line with a compiler error is a break:
//   functions, variables, enums:  typeof New.x  must be assignable to  typeof Old.x
//   classes: every public member of Old.C exists on New.C with an assignable type (instance
//            and static side), and the old constructor arguments are accepted
//   class methods: the old argument list (Parameters<Old.C["m"]>) is accepted by the new method
//   types and interfaces: Old.T and New.T must be assignable both ways
// and, through the checker API, an arity rule assignability does not cover: every old call
// (or construct) signature must have a new one that accepts as many arguments.
//
// Two copies of one class are compared structurally, as a consumer sees them: private,
// protected and #private members are removed from both packages' declarations before
// checking (they make TypeScript compare classes by declaration, so every class with one
// private field would count as broken, and no consumer can name them anyway).
//
// Members documented as internal (a JSDoc `@internal` tag, which the compiler's own
// `stripInternal` removes, or a doc comment saying "internal use" / "internal implementation")
// are removed the same way from the old release (a consumer of the old release never used
// them; a member the new release merely documents as internal still compiles): rxjs 6 ships `Observable._subscribe` as
// "@internal This is an internal implementation detail, do not use."
//
// A generic function with one signature is checked as an old caller would call it: with each type parameter at
// its constraint (`typeof Old.f<Date>`) when the constraint is a global type, else `any`.
// Relating two generic signatures directly compares opaque type parameters, which fails for
// return types computed by conditional types although every concrete old call still compiles
// (date-fns 4's `eachDayOfInterval`).
//
// Prints JSON: {removed, broken, unchanged, reasons, old_exports, overloaded, reexported, seconds}.
"use strict";
const path = require("path");
const fs = require("fs");
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
  noErrorTruncation: true,
};

const packageDirs = ["old-pkg", "new-pkg"].map((name) =>
  fs.realpathSync(path.join(work, "node_modules", name)),
);

function packageOf(file) {
  const real = path.resolve(file);
  return packageDirs.findIndex((dir) => real.startsWith(dir + path.sep));
}

const INTERNAL_DOC = /@internal\b|\binternal (use|implementation)/i;

function documentedInternal(member) {
  const docs = ts.getJSDocCommentsAndTags(member).map((doc) => doc.getFullText());
  return docs.some((text) => INTERNAL_DOC.test(text));
}

function isNonPublic(member, oldRelease) {
  if (member.name && ts.isPrivateIdentifier(member.name)) return true;
  const flags = ts.getCombinedModifierFlags(member);
  if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return true;
  return oldRelease && documentedInternal(member);
}

function publicOnly(oldRelease) {
  return (context) => {
    const visit = (node) => {
      if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
        const members = node.members.filter(
          (m) => ts.isConstructorDeclaration(m) || !isNonPublic(m, oldRelease),
        );
        const update = ts.isClassDeclaration(node) ? ts.factory.updateClassDeclaration : ts.factory.updateClassExpression;
        node = update(node, node.modifiers, node.name, node.typeParameters, node.heritageClauses, members);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (file) => ts.visitNode(file, visit);
  };
}

const printer = ts.createPrinter();

let previous;
function program(probe, probeText) {
  const host = ts.createCompilerHost(options, true);
  const read = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === probe ? probeText : read(file));
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === probe || exists(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, fresh) => {
    if (path.resolve(file) === probe) return ts.createSourceFile(file, probeText, language, true);
    const known = previous && previous.getSourceFile(file);
    if (known) return known;
    const source = getSourceFile(file, language, onError, fresh);
    const owner = packageOf(file);
    if (!source || owner < 0 || !source.text.includes("class ")) return source;
    const result = ts.transform(source, [publicOnly(owner === 0)]);
    const text = printer.printFile(result.transformed[0]);
    result.dispose();
    return ts.createSourceFile(file, text, language, true);
  };
  previous = ts.createProgram([probe], options, host, previous);
  return { prog: previous, probe };
}

const probe = path.join(work, "probe.ts");
const header = 'import * as O from "old-pkg";\nimport * as N from "new-pkg";\n';
const first = program(probe, header);
const checker = first.prog.getTypeChecker();
const [oldImport, newImport] = first.prog.getSourceFile(probe).statements;

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

// Tags for the bench's breakdown: overload sets (more than one call or construct signature) and
// re-exported members (declared in another file than the entry the import resolves to).
function entryFile(decl) {
  const moduleSymbol = checker.getSymbolAtLocation(decl.moduleSpecifier);
  const declaration = moduleSymbol && (moduleSymbol.valueDeclaration || (moduleSymbol.declarations || [])[0]);
  return declaration ? declaration.getSourceFile().fileName : "";
}
const oldEntry = entryFile(oldImport);
const overloaded = [];
const reexported = [];
for (const [name, sym] of oldExports) {
  const declarations = sym.declarations || [];
  if (declarations.length && declarations.every((d) => d.getSourceFile().fileName !== oldEntry)) reexported.push(name);
  if (!(sym.flags & ts.SymbolFlags.Value)) continue;
  const type = checker.getTypeOfSymbol(sym);
  const signatures = type.getCallSignatures().length + type.getConstructSignatures().length;
  if (signatures > 1) overloaded.push(name);
}

const globalTypes = new Set(
  checker.getSymbolsInScope(first.prog.getSourceFile(probe), ts.SymbolFlags.Type).map((s) => s.name),
);
const KEYWORDS = new Set(["string", "number", "boolean", "object", "unknown", "any", "symbol", "bigint", "readonly", "keyof", "undefined", "null", "never", "void"]);

function constraintText(parameter) {
  const text = parameter.constraint ? parameter.constraint.getText() : "unknown";
  const words = text.match(/[A-Za-z_$][\w$]*/g) || [];
  return words.every((w) => KEYWORDS.has(w) || globalTypes.has(w)) && !/["'`]/.test(text) ? text : "any";
}

function callTypeArgs(sym) {
  const declarations = (sym.declarations || []).filter((d) => ts.isFunctionLike(d));
  if (declarations.length !== 1 || !declarations[0].typeParameters) return "";
  return "<" + declarations[0].typeParameters.map(constraintText).join(", ") + ">";
}

function typeArgs(sym) {
  const decl = (sym.declarations || []).find((d) => d.typeParameters);
  const count = decl ? decl.typeParameters.length : 0;
  return count ? "<" + Array(count).fill("any").join(", ") + ">" : "";
}

// --- arity: assignability lets a function with fewer parameters stand in for one with more ---

function arity(signature) {
  const params = signature.getDeclaration() ? signature.getDeclaration().parameters || [] : [];
  const rest = params.some((p) => p.dotDotDotToken);
  const count = signature.getParameters().length;
  return { min: signature.minArgumentCount ?? count, max: rest ? Infinity : count };
}

function arityLoss(oldType, newType, kind) {
  const olds = checker.getSignaturesOfType(oldType, kind).map(arity);
  const news = checker.getSignaturesOfType(newType, kind).map(arity);
  if (!olds.length || !news.length) return null;
  for (const old of olds) {
    if (!news.some((n) => n.max >= old.max)) {
      return `no ${kind === ts.SignatureKind.Call ? "call" : "construct"} signature takes ${old.max} arguments any more`;
    }
  }
  return null;
}

function valueType(sym) {
  return checker.getTypeOfSymbol(sym);
}

function arityReason(name, oldSym, newSym) {
  const oldType = valueType(oldSym);
  const newType = valueType(newSym);
  const direct = arityLoss(oldType, newType, ts.SignatureKind.Call) || arityLoss(oldType, newType, ts.SignatureKind.Construct);
  if (direct) return direct;
  if (!(oldSym.flags & ts.SymbolFlags.Class)) return null;
  const oldInstance = checker.getDeclaredTypeOfSymbol(oldSym);
  const newInstance = checker.getDeclaredTypeOfSymbol(newSym);
  for (const prop of checker.getPropertiesOfType(oldInstance)) {
    const newProp = checker.getPropertyOfType(newInstance, prop.escapedName.toString());
    if (!newProp) continue;
    const loss = arityLoss(valueType(prop), valueType(newProp), ts.SignatureKind.Call);
    if (loss) return `${name}.${prop.escapedName}: ${loss}`;
  }
  return null;
}

// --- old usage lines ---------------------------------------------------------------------------

function methodNames(sym) {
  const instance = checker.getDeclaredTypeOfSymbol(sym);
  return checker
    .getPropertiesOfType(instance)
    .filter((p) => p.flags & ts.SymbolFlags.Method)
    .map((p) => p.escapedName.toString())
    .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
}

function checksFor(name, sym, newSym) {
  const o = `O.${name}${typeArgs(sym)}`;
  const n = `N.${name}${typeArgs(newSym)}`;
  const f = sym.flags;
  if (f & ts.SymbolFlags.Class) {
    const lines = [
      `{ let n!: Pick<${n}, keyof ${o}>; let o: Pick<${o}, keyof ${o}> = n; }`,
      `{ let n!: Pick<typeof N.${name}, Exclude<keyof typeof O.${name}, "prototype">>; let o: Pick<typeof O.${name}, Exclude<keyof typeof O.${name}, "prototype">> = n; }`,
      `{ let n!: typeof N.${name}; let o: abstract new (...args: ConstructorParameters<typeof O.${name}>) => unknown = n; }`,
    ];
    for (const method of methodNames(sym)) {
      lines.push(`{ let a!: Parameters<${o}["${method}"]>; let b: Parameters<${n}["${method}"]> = a; }`);
    }
    return lines;
  }
  if (f & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum)) {
    const call = f & ts.SymbolFlags.Function ? callTypeArgs(sym) : "";
    return [`{ let n!: typeof N.${name}; let o: typeof O.${name}${call} = n; }`];
  }
  if (f & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
    return [`{ let n!: ${n}; let o: ${o} = n; }`, `{ let o!: ${o}; let n: ${n} = o; }`];
  }
  return [];
}

const removed = [];
const lines = [];
const owner = [];
const reasons = {};
const inheritedFrom = {};
for (const [name, sym] of oldExports) {
  if (name === "default" || name === "__esModule") continue;
  const newSym = newExports.get(name);
  if (!newSym) {
    removed.push(name);
    continue;
  }
  const loss = arityReason(name, sym, newSym);
  if (loss) reasons[name] = loss;
  for (const check of checksFor(name, sym, newSym)) {
    lines.push(check);
    owner.push(name);
  }
}
// --- a break belongs to the declaration that changed --------------------------------------------

const typeExports = new Set(
  [...oldExports].filter(([, sym]) => sym.flags & (ts.SymbolFlags.Type | ts.SymbolFlags.Class)).map(([name]) => name),
);
const PAIR = /'([^']*)'(?: is not assignable to type | and )'([^']*)'/;

function unqualified(text) {
  // import("…").X, O.X, React.X: how the compiler names one declaration from either side
  return text.replace(/import\("[^"]*"\)\./g, "").replace(/\b(?:[A-Za-z_$][\w$]*\.)+(?=[A-Za-z_$])/g, "");
}

// The compiler explains a failed check as a chain; when a step relates two types that print
// the same (the old and the new copy of one exported declaration), what changed is that
// declaration, which is checked as an export of its own.
function inherited(messageText, skipFirst) {
  let level = typeof messageText === "string" ? { messageText } : messageText;
  let depth = 0;
  while (level) {
    const match = depth >= (skipFirst ? 1 : 0) && PAIR.exec(level.messageText);
    if (match && unqualified(match[1]) === unqualified(match[2])) {
      const words = unqualified(match[1]).match(/[A-Za-z_$][\w$]*/g) || [];
      if (words.some((w) => typeExports.has(w))) return true;
    }
    level = level.next && level.next[0];
    depth += 1;
  }
  return false;
}

function explain(messageText) {
  const levels = [];
  for (let level = typeof messageText === "string" ? { messageText } : messageText; level; level = level.next && level.next[0]) {
    levels.push(unqualified(level.messageText).slice(0, 240));
  }
  return levels.length > 2 ? `${levels[0]} … ${levels[levels.length - 1]}` : levels.join(" ");
}

function failing(programLines, programOwners) {
  const { prog } = program(probe, header + programLines.join("\n") + "\n");
  const probeFile = prog.getSourceFile(probe);
  const found = new Map();
  for (const diagnostic of prog.getSemanticDiagnostics(probeFile)) {
    if (diagnostic.start === undefined) continue;
    const name = programOwners[probeFile.getLineAndCharacterOfPosition(diagnostic.start).line - 2];
    if (name !== undefined) found.set(name, [...(found.get(name) || []), diagnostic]);
  }
  return found;
}

// Which names fail is decided in one program; each failing name is then checked alone, because
// how the compiler explains a failure depends on which relations it has already cached.
for (const name of failing(lines, owner).keys()) {
  if (reasons[name]) continue;
  const own = lines.filter((_, i) => owner[i] === name);
  for (const diagnostic of failing(own, own.map(() => name)).get(name) || []) {
    if (inherited(diagnostic.messageText, typeExports.has(name))) {
      inheritedFrom[name] = true;
      continue;
    }
    reasons[name] = explain(diagnostic.messageText);
    break;
  }
}
const checked = new Set(owner);
const broken = Object.keys(reasons).sort();
const unchanged = [...checked].filter((name) => !reasons[name]).sort();
process.stdout.write(
  JSON.stringify({
    removed: removed.sort(),
    broken,
    unchanged,
    reasons,
    changed_only_through_other_exports: Object.keys(inheritedFrom).filter((n) => !reasons[n]).sort(),
    old_exports: oldExports.size,
    overloaded: overloaded.sort(),
    reexported: reexported.sort(),
    seconds: (Date.now() - started) / 1000,
  }) + "\n",
);
