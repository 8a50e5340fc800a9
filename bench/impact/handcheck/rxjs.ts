// rxjs 6.6.7 -> 7.0.0. Oracle verdicts per line in the comments.
import { of, range, timer, Subscription, Subject, Observable, iif, defer, EMPTY, zip, combineLatest, forkJoin, throwError, Subscriber, asapScheduler, SchedulerLike } from "PKG";
const a: Observable<number> = of(1, 2);                  // of: unchanged (was broken through Observable)
const b = range(undefined, 3);                           // range: broken -> error expected
const c = timer();                                       // timer: broken -> error expected
const s: Subscription = a.subscribe((x) => console.log(x));
s.add(() => {});                                         // this call compiles in both
const added: Subscription = s.add(() => {});             // Subscription: broken (add returns void now) -> error expected
const subj = new Subject<number>(); subj.next(1);
const i = iif(() => true, of(1));                        // iif: broken -> error expected
const d = defer(() => of(1));                            // defer: unchanged
const e: Observable<never> = EMPTY;                      // EMPTY: unchanged
const o2 = Observable.if(() => true, of(1), of(2));      // Observable: broken (static `if` removed) -> error
const z = zip(of(1), of("a"));                           // zip: unchanged
const cl = combineLatest([of(1), of(2)]);                // combineLatest: unchanged
const fj = forkJoin({ a: of(1) });                       // forkJoin: unchanged
const te = throwError(new Error("x"));                   // throwError: unchanged
const sub = new Subscriber<number>((x: number) => {}, (err: any) => {}, () => {});  // Subscriber: broken -> error
const sch: SchedulerLike = asapScheduler;                // asapScheduler: broken (deep: AsyncAction.state), this line compiles
