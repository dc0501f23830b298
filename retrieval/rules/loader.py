"""Rules as data: read the shipped YAML and the user's override file into validated rule objects.

Why pydantic here: a rule file is edited by hand, and a typo ("prority", a route that
does not exist, an unsafe regex) must be refused at load with the rule's id in the
message, not discovered as a silent mis-route at query time.

File shape (see rules.yaml for the documented shipped set)::

    version: 1
    synonyms:                  # groups of interchangeable words: a vocab set holding one holds them all
      - [邮箱, 电邮, 电子信箱, email, e-mail]
    vocab:                     # named keyword sets, referenced as "@name" in triggers
      phone: [电话, 手机号, phone]
    rules:
      - id: extract_phone
        name: 提取电话号码
        description: plain-language sentence shown by --explain
        route: extract_phone
        priority: 70           # highest wins; ties by file order
        confidence: 0.95       # below settings.rules.confidence_threshold -> handler_then_model
        enabled: true
        triggers:              # the rule fires if ANY trigger matches
          - all: ["@extract_verb", "@phone"]   # every term present ("@set" = any word of the set)
            any: []                            # at least one term present (if given)
            regex: []                          # at least one bounded regex matches (if given)
            none: []                           # no term present
        exclude: [电话会议]     # no trigger counts when one of these is present
        preconditions:
          file_types: [xlsx, csv]              # the instruction's file type must be one of these (if known)
          table_columns_like: [地区]            # a table in scope has a column named like one of these (if known)

User override file (settings.rules.user_rules_file): same shape; an entry with an
existing id is merged over the shipped rule (so ``{id: x, enabled: false}`` disables
it), new ids are appended, ``vocab`` entries replace shipped sets of the same name, and
``synonyms`` groups are added to the shipped ones.

Why synonym groups next to vocab sets: a user who meets a new word for e-mail
("电子信箱") adds it once to the e-mail group, and every set that knows "邮箱" (the
extract trigger, the lookup trigger, an exclusion) learns it, instead of the user
finding each set by hand. Groups are closed over after normalisation, at load time, so
matching cost does not change.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from officeqa.errors import ConfigurationError
from retrieval.rules.normalize import normalize
from retrieval.rules.safety import UnsafeRegex, check_regex

Route = Literal[
    "retrieve_qa", "summary_tree", "compare", "chitchat",
    "extract_phone", "extract_email", "extract_amount", "extract_date", "extract_id_number", "extract_url",
    "table_aggregate", "count", "outline", "list_values",
]

# Routes answered by a deterministic handler; the others are pipeline paths.
HANDLER_ROUTES: frozenset[str] = frozenset({
    "extract_phone", "extract_email", "extract_amount", "extract_date", "extract_id_number", "extract_url",
    "table_aggregate", "count", "outline", "list_values",
})

# Every route a rule or a labelled example may name.
ALL_ROUTES: frozenset[str] = frozenset(get_args(Route))

SHIPPED_RULES = "rules.yaml"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Trigger(BaseModel):
    """One way a rule can fire; every condition given must hold."""

    model_config = ConfigDict(extra="forbid")

    any: list[str] = Field(default_factory=list, description="At least one of these terms is present.")
    all: list[str] = Field(default_factory=list, description="Every one of these terms is present.")
    regex: list[str] = Field(default_factory=list, description="At least one of these bounded regexes matches.")
    none: list[str] = Field(default_factory=list, description="None of these terms is present.")

    @model_validator(mode="after")
    def _not_empty(self) -> Trigger:
        if not (self.any or self.all or self.regex):
            raise ValueError("a trigger needs at least one of any / all / regex")
        return self


class Preconditions(BaseModel):
    """What must be true of the scope (not the wording) for a rule to apply."""

    model_config = ConfigDict(extra="forbid")

    file_types: list[str] = Field(default_factory=list, description="File types (suffix without dot) in scope.")
    table_columns_like: list[str] = Field(
        default_factory=list, description="A table in scope has a column named like one of these."
    )

    @field_validator("file_types")
    @classmethod
    def _lower(cls, value: list[str]) -> list[str]:
        return [v.lower().lstrip(".") for v in value]


class Rule(BaseModel):
    """One L0 intent rule."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    name: str = ""
    description: str = ""
    route: Route
    priority: int = 50
    confidence: float = Field(0.9, ge=0.0, le=1.0)
    enabled: bool = True
    triggers: list[Trigger] = Field(min_length=1)
    exclude: list[str] = Field(default_factory=list)
    preconditions: Preconditions = Field(default_factory=Preconditions)


class RuleFile(BaseModel):
    """A whole rules file, validated; vocab references are resolved by the matcher."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    synonyms: list[list[str]] = Field(default_factory=list)
    vocab: dict[str, list[str]] = Field(default_factory=dict)
    rules: list[Rule] = Field(default_factory=list)


def _read_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.load(text, Loader=_YAML_LOADER) or {}  # a safe loader (the C one when built)
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"{source}: expected a mapping with 'rules' at the top level")
    return data


def _validate(raw: dict[str, Any], source: str) -> RuleFile:
    """Validate rule by rule so that an error names the rule it is about."""
    rules: list[Rule] = []
    for position, entry in enumerate(raw.get("rules") or []):
        rule_id = entry.get("id", f"#{position + 1}") if isinstance(entry, dict) else f"#{position + 1}"
        try:
            rule = Rule.model_validate(entry)
        except ValidationError as exc:
            raise ConfigurationError(f"{source}: rule {rule_id!r} is invalid: {exc}") from exc
        for trigger in rule.triggers:
            for pattern in trigger.regex:
                try:
                    check_regex(pattern)
                except UnsafeRegex as exc:
                    raise ConfigurationError(f"{source}: rule {rule.id!r}: regex {pattern!r} refused: {exc}") from exc
        rules.append(rule)
    ids = [r.id for r in rules]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ConfigurationError(f"{source}: duplicate rule ids {dupes}")
    try:
        head = RuleFile.model_validate({k: v for k, v in raw.items() if k != "rules"})
    except ValidationError as exc:
        raise ConfigurationError(f"{source}: invalid rules file header: {exc}") from exc
    head.rules = rules
    head.synonyms = [list(dict.fromkeys(normalize(w) for w in group)) for group in head.synonyms]
    head.vocab = expand_synonyms(
        {name: [normalize(w) for w in words] for name, words in head.vocab.items()}, head.synonyms
    )
    _check_vocab_refs(head, source)
    return head


def expand_synonyms(vocab: dict[str, list[str]], groups: list[list[str]]) -> dict[str, list[str]]:
    """Every vocab set that holds a word of a synonym group gets the whole group (order kept, no duplicates)."""
    out: dict[str, list[str]] = {}
    for name, words in vocab.items():
        present = set(words)
        extra = [w for group in groups if present.intersection(group) for w in group]
        out[name] = list(dict.fromkeys([*words, *extra]))
    return out


def _check_vocab_refs(rule_file: RuleFile, source: str) -> None:
    for rule in rule_file.rules:
        terms = list(rule.exclude)
        for t in rule.triggers:
            terms += t.any + t.all + t.none
        for term in terms:
            if term.startswith("@") and term[1:] not in rule_file.vocab:
                raise ConfigurationError(f"{source}: rule {rule.id!r} refers to unknown vocab {term!r}")


def parse_rules_text(text: str, source: str = "<rules>") -> RuleFile:
    """Validate a rules document given as YAML text (used by tests and the loader)."""
    return _validate(_read_yaml(text, source), source)


def _merge(shipped: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """Apply the user's file over the shipped one: same id merges over, new ids append, vocab replaces."""
    merged_rules = [dict(r) for r in shipped.get("rules") or []]
    index = {r.get("id"): i for i, r in enumerate(merged_rules)}
    for entry in user.get("rules") or []:
        if not isinstance(entry, dict):
            raise ConfigurationError(f"user rules: every rule must be a mapping, got {entry!r}")
        if entry.get("id") in index:
            merged_rules[index[entry["id"]]] = {**merged_rules[index[entry["id"]]], **entry}
        else:
            merged_rules.append(entry)
    vocab = {**(shipped.get("vocab") or {}), **(user.get("vocab") or {})}
    synonyms = [*(shipped.get("synonyms") or []), *(user.get("synonyms") or [])]
    return {**shipped, "vocab": vocab, "synonyms": synonyms, "rules": merged_rules}


def load_rules(user_rules_file: str | Path | None = None, shipped_text: str | None = None) -> RuleFile:
    """The shipped rules merged with the user's file (if any), validated.

    Disabled rules are kept: explain mode lists them as disabled.
    """
    text = shipped_text if shipped_text is not None else (
        resources.files("retrieval.rules").joinpath(SHIPPED_RULES).read_text(encoding="utf-8")
    )
    raw = _read_yaml(text, SHIPPED_RULES)
    source = SHIPPED_RULES
    if user_rules_file:
        path = Path(user_rules_file)
        try:
            user_text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(f"user rules file {path}: cannot be read: {exc}") from exc
        raw = _merge(raw, _read_yaml(user_text, str(path)))
        source = f"{SHIPPED_RULES} + {path}"
    return _validate(raw, source)
