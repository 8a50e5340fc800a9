// date-fns 3.6.0 -> 4.1.0. Oracle: nothing broken at the main entry (the first-round oracle
// called eachDayOfInterval, eachMonthOfInterval, interval, ... broken: generic signatures
// compared with opaque type parameters). Every line compiles against both releases.
import { eachDayOfInterval, interval, eachMonthOfInterval, addDays, format, parse, isValid, differenceInDays, max } from "PKG";
const a: Date[] = eachDayOfInterval({ start: new Date(2020, 1, 1), end: new Date(2020, 2, 1) });
const a2: Date[] = eachDayOfInterval({ start: 0, end: Date.now() }, { step: 2 });
const b = interval(new Date(), Date.now());
const b2: { start: Date; end: Date } = interval(new Date(), Date.now(), { assertPositive: true });
const c: Date[] = eachMonthOfInterval({ start: new Date(), end: new Date() });
const d: Date = addDays(new Date(), 3);
const e: string = format(new Date(), "yyyy");
const f: Date = parse("2020", "yyyy", new Date());
const g: boolean = isValid(f);
const h: number = differenceInDays(new Date(), 0);
const i: Date = max([new Date(), 0]);
