// @types/react 17.0.80 -> 18.0.0. Oracle verdicts per line in the comments.
import * as React from "PKG";
const e: React.ReactElement = React.createElement("div", { className: "x" }, "hi");   // createElement: unchanged itself
const [n, setN] = React.useState(0);
React.useEffect(() => { setN(1); }, []);                 // useEffect: broken (EffectCallback's Destructor); this compiles
const ctx = React.createContext<number>(1);
const v: number = React.useContext(ctx);
const F: React.FC<{ a: number }> = ({ a, children }) => React.createElement("b", null, a, children);  // FC: unchanged by assignability, but this breaks (no implicit children) -- the oracle's known miss
class K extends React.Component<{ x: number }> { render() { return React.createElement("i", null, this.props.x); } }
const node: React.ReactNode = {} as {};                  // ReactNode: broken -> error expected
const s: React.SFC = () => null;                         // SFC: removed -> error expected
