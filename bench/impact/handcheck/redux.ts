// redux 4.2.1 -> 5.0.0. Oracle verdicts per line in the comments.
import { createStore, combineReducers, applyMiddleware, bindActionCreators, Reducer, AnyAction, Store, Middleware, DeepPartial } from "PKG";
const r: Reducer<number, AnyAction> = (s = 0, a) => s + 1;
const root = combineReducers({ n: r });
const store: Store = createStore(root);                  // createStore: broken (other overloads); this call compiles
const mw: Middleware = (api) => (next) => (action) => next(action);   // Middleware: broken (action: unknown); this compiles
const st2 = createStore(root, applyMiddleware(mw));      // applyMiddleware: unchanged itself
const b = bindActionCreators({ inc: () => ({ type: "inc" }) }, store.dispatch);
const dp: DeepPartial<{ a: number }> = {};               // DeepPartial: removed -> error expected
