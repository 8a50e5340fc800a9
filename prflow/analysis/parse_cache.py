"""Parse each file once: results cached by git blob SHA, inputs bounded, both cores used.

An unchanged file has the same blob SHA at base, at head and in the next run,
so its parse result is looked up instead of computed. Pure analyzers take a
:class:`ParseCache`; tests pass :class:`MemoryParseCache`, the activity passes
:class:`~prflow.store.parse_cache.StoreParseCache`, a table of prflow's
database.

Hostile input costs nothing: a file over :class:`InputLimits` in bytes or
lines is never parsed, and when many files are parsed in worker processes a
file that takes longer than its time budget is abandoned. Either way the
file comes back as a :class:`~prflow.analysis.findings.NotAnalysed` entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import multiprocessing.pool
import pickle
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from prflow.analysis.findings import NotAnalysed
from prflow.js_files import is_declaration_file
from prflow.source_tree import SourceTree

Parser = Callable[[str, str], bytes]
"""``parse(text, path) -> encoded result``; a module-level function, so workers can run it."""


class ParseCache(Protocol):
    """Bytes by key; keys already say which parser and which file content they belong to."""

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]: ...

    def put_many(self, items: Mapping[str, bytes]) -> None: ...


class MemoryParseCache:
    """A cache held in a dict: for tests, and to share parses between base and head."""

    def __init__(self) -> None:
        self.items: dict[str, bytes] = {}

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        return {key: self.items[key] for key in keys if key in self.items}

    def put_many(self, items: Mapping[str, bytes]) -> None:
        self.items.update(items)


@dataclass(frozen=True)
class InputLimits:
    """Files above these are listed as not analysed instead of parsed."""

    max_bytes: int = 1_000_000
    max_lines: int = 25_000
    declaration_max_bytes: int = 8_000_000
    declaration_max_lines: int = 250_000
    """TypeScript declaration files (``.d.ts``) are generated, often one bundled file for a
    whole API (@octokit/rest 16 ships 1.36 MB): they may be this big, and one above
    ``max_bytes``/``max_lines`` is always parsed in a worker process under
    ``seconds_per_file`` per started ``max_bytes`` (a 1.36 MB one parses in about 3 s with
    64 MB resident on a quiet machine)."""
    seconds_per_file: float = 20.0
    """Wall time one file's parse may take in a worker process, the pool's start-up excluded."""
    startup_seconds: float = 120.0
    """Wall time a pool of worker processes may take to start and load the parser; beyond it
    the files are parsed inline (ordinary ones) or listed as not analysed (oversized ones)."""
    parallel_from: int = 150
    """Parse in worker processes when at least this many files miss the cache."""
    parallel_from_when_ready: int = 16
    """The same once :func:`start_parse_workers` has the fork server up (the warm worker): a
    pool then costs two forks of the server, 10-17 ms from start to last result (measured
    with a few tiny files on a loaded 2-core machine), and 16 files of a package take about
    50 ms to parse inline, so the head side of a small release pair (httpx: 32 changed
    files) is parsed on both cores too, not only the base side."""


def git_blob_sha(data: bytes) -> str:
    """The id git gives a file with these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class ParserSpec:
    """A parser and the version of its output format: both are part of every cache key."""

    name: str
    version: str
    parse: Parser

    def key(self, blob_sha: str) -> str:
        return f"{self.name}/{self.version}/{blob_sha}"


@dataclass
class ParsedFiles:
    """Parse results of one tree's files, shared cache underneath, skips recorded."""

    spec: ParserSpec
    cache: ParseCache
    limits: InputLimits = field(default_factory=InputLimits)
    skipped: dict[str, NotAnalysed] = field(default_factory=dict)
    parsed_count: int = 0
    progress: Callable[[str], None] | None = None
    """Called now and then during long work (the activity heartbeats from it)."""
    _results: dict[tuple[int, str], bytes | None] = field(default_factory=dict)

    def get(self, tree: SourceTree, path: str) -> bytes | None:
        return self.get_many(tree, [path]).get(path)

    def get_many(self, tree: SourceTree, paths: Iterable[str]) -> dict[str, bytes]:
        """Results for ``paths`` that exist, fit the limits and were parsed in time."""
        paths = list(paths)
        self.prefetch([(tree, paths)])
        found: dict[str, bytes] = {}
        for path in paths:
            result = self._results.get((id(tree), path))
            if result is not None:
                found[path] = result
        return found

    def prefetch(self, batches: Sequence[tuple[SourceTree, Sequence[str]]]) -> None:
        """Parse what ``batches`` (files of one or more trees) miss in the cache, as one batch.

        Two trees' files parsed together keep both cores busy through one pool, where
        one pool per tree would wait twice for its slowest file and start twice (a release
        pair's base and head: 61 and 32 files of httpx). Results go to the cache and to
        this object, so later :meth:`get_many` calls find them.
        """
        items: list[tuple[SourceTree, str]] = []
        for tree, paths in batches:
            for path in dict.fromkeys(paths):
                if (id(tree), path) not in self._results:
                    items.append((tree, path))
        if items:
            self._load(items)

    def _load(self, items: Sequence[tuple[SourceTree, str]]) -> None:
        texts: dict[str, str] = {}
        keys: dict[tuple[int, str], str] = {}
        for tree, path in items:
            self._results[(id(tree), path)] = None
            text = self._readable_text(tree, path)
            if text is None:
                continue
            key = self.spec.key(git_blob_sha(text.encode("utf-8", errors="replace")))
            keys[(id(tree), path)] = key
            texts.setdefault(key, text)
        cached = self.cache.get_many(sorted(set(keys.values())))
        # one parse per distinct content, named by the first path that has it; a content
        # whose parse ran out of time moments ago is not given its budget again
        jobs: dict[str, str] = {}
        for (_, path), key in keys.items():
            if key in cached:
                continue
            reason = TIMED_OUT.reason(key)
            if reason is not None:
                self.skip(path, reason)
            else:
                jobs.setdefault(key, path)
        fresh = self._parse(jobs, texts)
        self.cache.put_many(fresh)
        by_key = {**cached, **fresh}
        for slot, key in keys.items():
            self._results[slot] = by_key.get(key)

    def _readable_text(self, tree: SourceTree, path: str) -> str | None:
        size = tree.size_of(path)
        if size is None:
            return None
        declaration = is_declaration_file(path)
        max_bytes = self.limits.declaration_max_bytes if declaration else self.limits.max_bytes
        max_lines = self.limits.declaration_max_lines if declaration else self.limits.max_lines
        if size > max_bytes:
            self.skip(path, f"larger than {max_bytes} bytes ({size})")
            return None
        text = tree.read_text(path)
        if text is None:
            self.skip(path, "binary or undecodable content")
            return None
        lines = text.count("\n") + 1
        if lines > max_lines:
            self.skip(path, f"more than {max_lines} lines ({lines})")
            return None
        return text

    def _oversized(self, text: str) -> bool:
        """Beyond the ordinary limits (a big declaration file): parsed only under a time limit."""
        return len(text) > self.limits.max_bytes or text.count("\n") >= self.limits.max_lines

    def skip(self, path: str, reason: str) -> None:
        """Record that ``path`` was not analysed (the first reason wins)."""
        self.skipped.setdefault(path, NotAnalysed(path=path, reason=reason))

    def _parse(self, jobs: Mapping[str, str], texts: Mapping[str, str]) -> dict[str, bytes]:
        """Parse each content once: ``jobs`` maps a cache key to a path holding that content
        (the parser's file name, and the name a skip is recorded under), ``texts`` the key
        to the text. Returns results by key."""
        # longest first: the last file a pool process takes is then a short one, so neither
        # process idles long while the other finishes a big module
        keys = sorted(jobs, key=lambda key: (-len(texts[key]), jobs[key], key))
        self.parsed_count += len(keys)
        if self.progress is not None and keys:
            self.progress(f"parsing {len(keys)} files")
        threshold = (
            self.limits.parallel_from_when_ready if _workers.ready else self.limits.parallel_from
        )
        given_up: set[str] = set()

        def skip(key: str, reason: str) -> None:
            given_up.add(key)
            self.skip(jobs[key], reason)

        big = [k for k in keys if self._oversized(texts[k])]
        done: dict[str, bytes] = {}
        if big:
            # the time budget grows with the size: a 3 MB file gets three files' time
            scale = max(-(-len(texts[k]) // self.limits.max_bytes) for k in big)
            budget = replace(self.limits, seconds_per_file=self.limits.seconds_per_file * scale)
            try:
                _parse_in_workers(
                    self.spec.parse, big, jobs, texts, budget, skip, self.progress, done
                )
            except (OSError, RuntimeError):  # no worker processes: never parse these inline
                for key in big:
                    if key not in done:
                        skip(key, "too big to parse without a worker process")
            keys = [k for k in keys if k not in big]
        if len(keys) >= threshold:
            try:
                _parse_in_workers(
                    self.spec.parse, keys, jobs, texts, self.limits, skip, self.progress, done
                )
                return done
            except (OSError, RuntimeError):
                # no worker processes here (restricted host, odd __main__): parse the rest
                # inline, keeping what the workers finished and what they gave up on
                keys = [k for k in keys if k not in done and k not in given_up]
        for key in keys:
            try:
                done[key] = self.spec.parse(texts[key], jobs[key])
            except Exception as exc:  # a parser bug on one file must not sink the rest
                skip(key, f"parser failed: {type(exc).__name__}: {exc}")
        return done


class TimedOut:
    """Contents whose parse ran out of time in this process lately, with the reason.

    One run asks for a file's parse several times (the prefetch of both sides, each
    side's import graph, the API comparison): a hostile file that exhausts its budget
    would cost that budget each time. Within :attr:`seconds` it is listed as not
    analysed at once, with the same reason; after that it gets a fresh try (a budget
    lost to a moment of load is not held against a file for long).
    """

    def __init__(self, seconds: float = 600.0, limit: int = 1024) -> None:
        self.seconds = seconds
        self.limit = limit
        self._reasons: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def note(self, key: str, reason: str) -> None:
        with self._lock:
            if len(self._reasons) >= self.limit:
                self._reasons.clear()
            self._reasons[key] = (time.monotonic(), reason)

    def reason(self, key: str) -> str | None:
        with self._lock:
            found = self._reasons.get(key)
            if found is None:
                return None
            if time.monotonic() - found[0] > self.seconds:
                del self._reasons[key]
                return None
            return found[1]


TIMED_OUT = TimedOut()


PARSER_MODULES = ("prflow.analysis.py_summary",)
"""Modules of the parsers a big tree needs; :func:`start_parse_workers` preloads them."""


def start_parse_workers(modules: Sequence[str] = PARSER_MODULES) -> None:
    """Start the server that parse pools fork their processes from, with ``modules`` loaded.

    A long-lived process that will parse a big tree (the warm worker) calls this
    while it waits for work: the first pool's processes then start without
    importing the parsers (a fresh machine's first PR saves a start-up here).
    Without it, the server starts on first use, loading ``__main__`` only; with it,
    ``__main__`` is not loaded there, so a parser must live in an importable module.
    """
    import multiprocessing.forkserver

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(modules))
    multiprocessing.forkserver.ensure_running()
    _workers.ready = True


@dataclass
class _WorkerState:
    ready: bool = False
    """Set once this process started the fork server with the parsers loaded."""


_workers = _WorkerState()


class _NoWorkers(RuntimeError):
    """Worker processes could not be started (or not within their start-up time)."""


def _parse_in_workers(
    parse: Parser,
    keys: list[str],
    paths: Mapping[str, str],
    texts: Mapping[str, str],
    limits: InputLimits,
    skip: Callable[[str, str], None],
    progress: Callable[[str], None] | None,
    done: dict[str, bytes],
) -> None:
    """Parse on every core; a file over its time budget is skipped and its worker replaced.

    The budget covers the parse alone: each pool is started and its processes have loaded
    the parser's module (:func:`_load_parser`) before any file's clock runs, so a slow
    start (a busy machine, a cold import) never counts against the first files. Results are
    written into ``done`` as they come, so a caller whose later pool cannot start keeps
    them. ``keys`` name the jobs (``paths[key]`` is the file name the parser is given,
    ``texts[key]`` its text); ``skip`` and ``done`` take keys. Raises :class:`_NoWorkers`
    (a ``RuntimeError``) or ``OSError`` when no pool can be started.
    """
    pending = list(keys)
    # forkserver: forking a process that runs worker threads can copy held locks.
    context = multiprocessing.get_context("forkserver")
    while pending:
        with _main_left_out():
            pool = _ParsePool(
                processes=max(1, min(2, multiprocessing.cpu_count())),
                initializer=_load_parser,
                initargs=(_pickled(parse),),
                context=context,
            )
        try:
            try:
                # a process that ran the initializer is up: only now do the budgets start
                pool.apply_async(_started).get(timeout=limits.startup_seconds)
            except multiprocessing.TimeoutError as exc:
                raise _NoWorkers(
                    f"parse workers did not start within {limits.startup_seconds:g} s"
                ) from exc
            # In submission order: by the time file i is waited for, every earlier file is
            # done, so file i already runs on a started process and its wait is its parse.
            jobs = [(key, pool.apply_async(parse, (texts[key], paths[key]))) for key in pending]
            pending = []
            for index, (key, job) in enumerate(jobs):
                if progress is not None and index % 50 == 0:
                    progress(f"parsed {index} of {len(jobs)} files")
                try:
                    done[key] = job.get(timeout=limits.seconds_per_file)
                except multiprocessing.TimeoutError:
                    reason = f"parsing took longer than {limits.seconds_per_file:g} s"
                    TIMED_OUT.note(key, reason)
                    skip(key, reason)
                    pending = [k for k, j in jobs[index + 1 :] if not _finished(j, done, k)]
                    break
                except Exception as exc:  # a parser bug on one file must not sink the rest
                    skip(key, f"parser failed: {type(exc).__name__}")
        finally:
            pool.terminate()
            pool.join()


class _ParsePool(multiprocessing.pool.Pool):
    """A pool whose worker-keeping thread sleeps while results stream in.

    The standard pool's thread also wakes on its result pipe, and while results wait there
    (until the result thread reads them) it loops without blocking: about 1,000 turns and
    40-60 ms of the parent's CPU for a release pair's 91 files, on the two cores the parse
    processes need, holding the GIL the activity's own thread wants. It still wakes when a
    worker exits (to replace it) and on the pool's notifier (close, terminate, an emptied
    job cache), as ``multiprocessing.pool.ThreadPool`` does.
    """

    def _get_sentinels(self) -> list[object]:
        return [self._change_notifier._reader]  # type: ignore[attr-defined]


def _pickled(parse: Parser) -> bytes:
    try:
        return pickle.dumps(parse)
    except Exception:  # not picklable: each file's job fails alone and is listed as such
        return b""


def _load_parser(pickled: bytes) -> None:
    """Pool initializer: unpickling the parser imports its module in the worker process.

    A failure is left to the files' jobs (each is listed as not analysed): a process whose
    initializer raised would be replaced forever and the pool would never start."""
    with contextlib.suppress(Exception):
        if pickled:
            pickle.loads(pickled)  # our own parser function, pickled by the parent


def _started() -> bool:
    return True


_MAIN_SWAP = threading.Lock()


@contextlib.contextmanager
def _main_left_out() -> Iterator[None]:
    """While a pool starts its processes, ``__main__`` is a bare module, so each process does
    not run the parent's main module again before its first parse.

    Multiprocessing re-runs the parent's main module in every process it starts (as
    ``__mp_main__``, for functions defined there). The parsers live in importable modules,
    so the processes need nothing from it, and it is costly: the warm worker's
    ``worker.warm`` and the ``prflow`` script import pydantic, the settings and more, about
    0.2 s of CPU per process, twice per parse pool (httpx 0.27.2->0.28.1: 0.6 s of the warm
    worker's 0.95 s CPU per command was its two pool processes).
    """
    with _MAIN_SWAP:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


def _finished(
    job: multiprocessing.pool.AsyncResult[bytes], done: dict[str, bytes], key: str
) -> bool:
    """Keep a result that was ready when the pool had to be replaced."""
    if not job.ready() or not job.successful():
        return False
    done[key] = job.get()
    return True
