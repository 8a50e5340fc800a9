"""What doc sync finds and records: targets, evidence, buckets, per-doc outcomes."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, model_validator


class TargetKind(StrEnum):
    """What a change altered that a doc may name."""

    symbol = "symbol"
    path = "path"
    cli_option = "cli_option"
    config_key = "config_key"
    env_var = "env_var"


class Change(StrEnum):
    """How it changed: removed and renamed leave docs wrong; the rest may."""

    removed = "removed"
    renamed = "renamed"
    signature = "signature"
    modified = "modified"


class Target(BaseModel):
    """One thing a doc may name, with how much a mention of it matters."""

    kind: TargetKind
    name: str
    change: Change
    weight: float = Field(ge=0, le=1, description="Score of a doc line naming it")
    detail: str = ""
    replacement: str | None = None
    source: str | None = Field(default=None, description="The changed file it comes from")
    params: list[str] = Field(
        default_factory=list,
        description="For a changed signature: the parameters added, removed or changed",
    )
    before: str | None = Field(default=None, description="For a changed signature: at base")
    after: str | None = Field(default=None, description="For a changed signature: at head")
    returns: str | None = Field(
        default=None,
        description="For a function whose return type changed: what changed "
        "(``return type `dict` -> `Response```); only a use of the result can see it",
    )
    reads_break: bool = Field(
        default=False,
        description="For a changed signature: the name was read, not called, and now is "
        "another kind (a property that became a method), so every use of it sees the change",
    )
    moved: bool = Field(
        default=False,
        description="For a removed symbol: it is still defined elsewhere in the package "
        "(moved, or no longer re-exported), so only a mention through the module it left "
        "is stale",
    )
    leaf_alive: bool = Field(
        default=False,
        description="For a removed config key: its last part is still a key of the file at "
        "head (it moved), so only its full dotted path is stale",
    )


class EvidenceKind(StrEnum):
    mention = "mention"
    front_matter = "front_matter"
    link = "link"


class Evidence(BaseModel):
    """Why a doc is affected: the line naming the target, a mapping, or a link."""

    kind: EvidenceKind
    target: str
    target_kind: TargetKind | None = None
    change: Change | None = None
    line: int | None = None
    excerpt: str = ""
    score: float = Field(ge=0, le=1)
    seen: list[str] = Field(
        default_factory=list,
        description="For a changed signature: the changed parameters this line passes, lacks "
        "or names (what makes it stale)",
    )
    returns: str | None = Field(
        default=None,
        description="For a changed return type: how the line uses the call's result and "
        "what changed (``attribute of the result; return type `dict` -> `Response```)",
    )
    via: str | None = Field(default=None, description="For a link: the affected doc linked to")


class Bucket(StrEnum):
    must_update = "must_update"
    review = "review"
    probably_fine = "probably_fine"


BUCKET_TITLES = {
    Bucket.must_update: "Must update",
    Bucket.review: "Review",
    Bucket.probably_fine: "Probably fine",
}


class Thresholds(BaseModel):
    """Scores at or above ``must_update`` must be updated; at or above ``review``, reviewed."""

    must_update: float = Field(default=0.8, ge=0, le=1)
    review: float = Field(default=0.4, ge=0, le=1)
    link_decay: float = Field(
        default=0.35,
        gt=0,
        le=1,
        description="A linking doc scores this share of the doc linked (0.35: a doc linking "
        "to one that must be updated is listed as probably fine; 0.5 puts it in review)",
    )
    link_depth: int = Field(default=2, ge=0, description="Link hops followed from an affected doc")

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.review > self.must_update:
            raise ValueError("the review threshold must not exceed the must-update threshold")
        return self

    def bucket(self, score: float) -> Bucket:
        if score >= self.must_update:
            return Bucket.must_update
        if score >= self.review:
            return Bucket.review
        return Bucket.probably_fine


class AffectedDoc(BaseModel):
    path: str
    bucket: Bucket
    score: float
    evidence: list[Evidence]


class DocFindings(BaseModel):
    """Every affected doc, best first, and what was looked for."""

    docs: list[AffectedDoc] = Field(default_factory=list)
    targets: list[Target] = Field(default_factory=list)
    docs_scanned: int = 0
    thresholds: Thresholds = Field(default_factory=Thresholds)

    def in_bucket(self, bucket: Bucket) -> list[AffectedDoc]:
        return [doc for doc in self.docs if doc.bucket == bucket]

    def to_edit(self) -> list[AffectedDoc]:
        """Docs an agent works on: must update, then review."""
        return [doc for doc in self.docs if doc.bucket != Bucket.probably_fine]
