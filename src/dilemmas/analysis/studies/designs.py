"""Experimental designs of a study: the ``[design]`` table of a study file
(docs/how-to/sensitivity.md).

::

    [design]
    kind = "sobol"        # "factorial" (the default), "lhs", "sobol" or "morris"
    samples = 64          # see below; a power of two for "sobol"
    seed = 7              # the sampler's seed; default: the study's seed
    num_levels = 4        # "morris" only: the levels of its grid (even, default 4, at most
                          # 268,435,456)

    [design.parameters]   # each parameter: a range or a list of levels
    beta = [0.05, 0.5]                                  # a range [low, high] (or {low, high})
    num_agents = {low = 4, high = 10}                   # an integer parameter: integers
    population = {levels = ["random", "firefighter"]}   # levels: only these values

A range is allowed for a parameter the game declares a number (``Integer``, ``Real``,
``Probability``, ``dilemmas.models.parameters``) and must lie within its declared bounds,
``low < high``; any parameter takes ``{levels = [...]}``. The points are drawn by SALib's
samplers, never here: ``"lhs"`` -- ``SALib.sample.latin``, ``samples`` points (one in each
of ``samples`` equal strata of every parameter); ``"sobol"`` -- ``SALib.sample.sobol``,
Saltelli's scheme for first-order and total Sobol indices (no second-order ones), scrambled,
``samples * (D + 2)`` points for ``D`` parameters, ``samples`` a power of two (the balance
of Sobol' sequences needs it; SALib only warns, a study file is refused); ``"morris"`` --
``SALib.sample.morris``, ``samples`` trajectories of ``D + 1`` points on a grid of
``num_levels`` levels. Each sampler draws in the parameters' SALib bounds: a real range is
its own bound, an integer range ``[low, high + 1)`` floored (so each integer is equally
likely under the uniform samplers), ``k`` levels ``[0, k)`` floored to a level's index (each
level equally likely); a grid point at the upper end (Morris) takes the last integer or
level. The same seed gives the same points (``Design.points``).

``"cases"`` lists the points themselves, each a table of the varied parameters' values
(every case naming the same parameters), for combinations no grid or sampler gives, such
as a population whose seated policy file goes with it (a meta-game,
``dilemmas.analysis.game_theory.metagame``)::

    [design]
    kind = "cases"
    [[design.cases]]
    population = "policy:1,stag_hunter:1"
    policy = "mixes/a.npz"
    [[design.cases]]
    population = "policy:2"
    policy = "mixes/b.npz"

``"factorial"`` is today's grid (``[sweep]``): levels as given, a range as ``samples``
evenly spaced values (integers: distinct ones); ``Design.sweep`` gives it as a sweep, so a
factorial design and the same ``[sweep]`` are one study, with the same seeds.

Errors name the key and what is allowed; the study (``dilemmas.analysis.studies.study``) adds
its file. SALib is imported only when points are drawn.
"""

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np

KINDS = ("factorial", "lhs", "sobol", "morris", "cases")
DESIGN_KEYS = ("kind", "samples", "seed", "num_levels", "parameters", "cases")
#: The most levels of a Morris grid: SALib draws each trajectory's start from
#: ``num_levels / 2`` float64 values (4 bytes a level, measured), held to 1 GiB.
MAX_LEVELS = 2 ** 30 // 4


class DesignError(ValueError):
    """A ``[design]`` table that cannot be used, naming the key at fault."""


@dataclass(frozen=True)
class Factor:
    """One parameter of a design: a range of reals or of integers (``low``, ``high``), or a
    list of ``levels``."""

    name: str
    kind: str  # "real", "integer" or "levels"
    low: float = 0.0
    high: float = 0.0
    levels: tuple = ()

    @property
    def bounds(self) -> list[float]:
        """Its bounds for SALib's samplers (module docstring)."""
        if self.kind == "real":
            return [float(self.low), float(self.high)]
        if self.kind == "integer":
            return [float(self.low), float(self.high) + 1]
        return [0.0, float(len(self.levels))]

    def value(self, x: float):
        """The parameter's value at SALib's sample ``x`` (module docstring)."""
        if self.kind == "real":
            return float(x)
        if self.kind == "integer":
            return min(int(math.floor(x)), int(self.high))
        return self.levels[min(int(math.floor(x)), len(self.levels) - 1)]

    def grid(self, count: int) -> list:
        """``count`` evenly spaced values of a range, or the levels (a factorial design)."""
        if self.kind == "levels":
            return list(self.levels)
        values = np.linspace(self.low, self.high, count)
        if self.kind == "real":
            return [float(v) for v in values]
        return sorted({int(round(v)) for v in values})

    def definition(self) -> dict:
        if self.kind == "levels":
            return {"levels": list(self.levels)}
        return {"low": self.low, "high": self.high}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _declared_range(kind) -> tuple[str, float | None, float | None] | None:
    """``(integer or real, low, high)`` of a declared parameter kind that takes a range, None
    for a kind that takes levels only; a bound naming another parameter counts as open (the
    model checks it at each point)."""
    name = type(kind).__name__
    if name == "Probability":
        return "real", 0.0, 1.0
    if name in ("Integer", "Real"):
        low, high = (None if isinstance(b, str) else b for b in (kind.low, kind.high))
        return ("integer" if name == "Integer" else "real"), low, high
    return None


def factor(name: str, spec, declared=None) -> Factor:
    """The factor of ``[design.parameters] name = spec``; ``declared``: the game's
    ``Parameter`` (its kind says whether a range is allowed, of integers or reals, and
    within which bounds), None to take a range of reals."""
    key = f"[design.parameters] {name}"
    if isinstance(spec, dict) and "levels" in spec:
        if set(spec) != {"levels"}:
            raise DesignError(f"{key}: levels go alone, as {{levels = [...]}}; got keys "
                              f"{sorted(spec)}")
        levels = spec["levels"]
        if not isinstance(levels, list) or not levels:
            raise DesignError(f"{key}: levels={levels!r} must be a non-empty list of values")
        texts = [json.dumps(v, sort_keys=True) for v in levels]
        if len(set(texts)) < len(texts):
            raise DesignError(f"{key}: levels={levels!r} repeats a value")
        return Factor(name, "levels", levels=tuple(levels))
    if isinstance(spec, dict) and set(spec) == {"low", "high"}:
        low, high = spec["low"], spec["high"]
    elif isinstance(spec, list) and len(spec) == 2:
        low, high = spec
    else:
        raise DesignError(f"{key}={spec!r} must be a range, [low, high] or {{low = .., high = "
                          "..}, or a list of levels, {levels = [...]}")
    if not (_number(low) and _number(high) and math.isfinite(low) and math.isfinite(high)):
        raise DesignError(f"{key}: the range [{low!r}, {high!r}] must be two finite numbers")
    if not low < high:
        raise DesignError(f"{key}: the range [{low!r}, {high!r}] must have low < high")
    kind, lowest, highest = "real", None, None
    if declared is not None:
        allowed = _declared_range(declared.kind)
        if allowed is None:
            raise DesignError(f"{key}: a range is for a number; {name} is "
                              f"{declared.allowed()}: give its levels, {{levels = [...]}}")
        kind, lowest, highest = allowed
    if kind == "integer" and not (float(low).is_integer() and float(high).is_integer()):
        raise DesignError(f"{key}: {name} is an integer; the range [{low!r}, {high!r}] must "
                          "have integer ends")
    if (lowest is not None and low < lowest) or (highest is not None and high > highest):
        raise DesignError(f"{key}: the range [{low!r}, {high!r}] leaves what {name} allows "
                          f"({declared.allowed()})")
    if kind == "integer":
        return Factor(name, "integer", int(low), int(high))
    return Factor(name, "real", float(low), float(high))


@dataclass(frozen=True)
class Design:
    """A design's kind, size, seed and factors (module docstring); ``points()`` draws it."""

    kind: str
    factors: tuple
    samples: int | None = None
    seed: int = 0
    num_levels: int = 4
    cases: tuple = ()

    @classmethod
    def from_table(cls, table, seed: int, declared=None) -> "Design":
        """The design of a ``[design]`` table (``seed``: the study's, unless the table gives
        one); ``declared``: the game's ``Parameters``, whose names and kinds the factors must
        fit (None: any names, ranges of reals)."""
        if not isinstance(table, dict):
            raise DesignError("[design] must be a table with kind, samples and parameters")
        unknown = sorted(set(table) - set(DESIGN_KEYS))
        if unknown:
            raise DesignError(f"[design] {unknown[0]}: unknown key; allowed: {list(DESIGN_KEYS)}")
        kind = table.get("kind", "factorial")
        if kind not in KINDS:
            raise DesignError(f"[design] kind={kind!r} must be one of {list(KINDS)}")
        seed = table.get("seed", seed)
        if type(seed) is not int or seed < 0:
            raise DesignError(f"[design] seed={seed!r} must be an integer >= 0")
        if kind == "cases" or "cases" in table:
            return cls._cases(table, kind, seed, declared)
        parameters = table.get("parameters")
        if not isinstance(parameters, dict) or not parameters:
            raise DesignError("[design.parameters] must be a table of at least one parameter, "
                              "each a range [low, high] or {levels = [...]}")
        factors = []
        for name, spec in parameters.items():
            if declared is not None and name not in declared:
                raise DesignError(f"[design.parameters] {name}: not a parameter of the game; "
                                  f"allowed: {declared.names}")
            factors.append(factor(name, spec, None if declared is None else declared[name]))
        samples = table.get("samples")
        ranged = [f.name for f in factors if f.kind != "levels"]
        if samples is None and (kind != "factorial" or ranged):
            what = ("the number of evenly spaced values of each range (" + ", ".join(ranged)
                    + ")") if kind == "factorial" else "the number of samples"
            raise DesignError(f"[design] samples is missing: {what}")
        if samples is not None and (type(samples) is not int or samples < 1):
            raise DesignError(f"[design] samples={samples!r} must be an integer >= 1")
        if kind == "factorial" and samples is not None and not ranged:
            raise DesignError(f"[design] samples={samples} spaces no range: a factorial "
                              "design of levels only plays every level; drop samples")
        if kind == "sobol" and samples & (samples - 1):
            raise DesignError(f"[design] samples={samples} must be a power of two for a Sobol "
                              f"design (Saltelli's scheme on a Sobol' sequence), e.g. "
                              f"{2 ** max(1, round(math.log2(samples)))}")
        if kind == "morris" and samples < 2:
            raise DesignError(f"[design] samples={samples} must be at least 2 trajectories for "
                              "a Morris design (sigma needs two elementary effects)")
        num_levels = table.get("num_levels", 4)
        if "num_levels" in table and kind != "morris":
            raise DesignError("[design] num_levels is for kind = \"morris\" only")
        if type(num_levels) is not int or not 2 <= num_levels <= MAX_LEVELS or num_levels % 2:
            raise DesignError(f"[design] num_levels={num_levels!r} must be an even integer "
                              f"from 2 to {MAX_LEVELS:,} (SALib holds half the levels as "
                              "float64 values: more would take over 1 GiB)")
        if kind == "factorial":
            for f in factors:
                if f.kind == "integer" and len(f.grid(samples)) < samples:
                    raise DesignError(f"[design.parameters] {f.name}: {samples} evenly spaced "
                                      f"integers from {f.low} to {f.high} are not distinct; "
                                      "give fewer samples or its levels")
        return cls(kind, tuple(factors), samples, seed, num_levels)

    @classmethod
    def _cases(cls, table, kind, seed, declared) -> "Design":
        """A design of ``kind = "cases"``: its points as listed (module docstring)."""
        if kind != "cases":
            raise DesignError(f"[design] cases is for kind = \"cases\" only, not {kind!r}")
        others = sorted(set(table) - {"kind", "seed", "cases"})
        if others:
            raise DesignError(f"[design] {others[0]}: not for kind = \"cases\", whose cases "
                              "give every varied parameter's value")
        cases = table.get("cases")
        if not isinstance(cases, list) or not cases \
                or not all(isinstance(case, dict) and case for case in cases):
            raise DesignError("[design] cases must be a non-empty list of tables of parameter "
                              "values ([[design.cases]])")
        names = list(cases[0])
        for number, case in enumerate(cases, 1):
            if set(case) != set(names):
                raise DesignError(f"[[design.cases]] number {number} names {sorted(case)}, "
                                  f"the first names {sorted(names)}: every case names the "
                                  "same parameters")
        if declared is not None:
            for name in names:
                if name not in declared:
                    raise DesignError(f"[[design.cases]] {name}: not a parameter of the game; "
                                      f"allowed: {declared.names}")
        factors = []
        for name in names:
            levels = {json.dumps(case[name], sort_keys=True): case[name] for case in cases}
            factors.append(Factor(name, "levels", levels=tuple(levels.values())))
        return cls("cases", tuple(factors), None, seed,
                   cases=tuple({name: case[name] for name in names} for case in cases))

    @classmethod
    def from_definition(cls, definition: dict) -> "Design":
        """The design a study's ``study.json`` records (``Design.definition``)."""
        if definition["kind"] == "cases":
            return cls._cases({"kind": "cases", "seed": definition["seed"],
                               "cases": definition["cases"]}, "cases", definition["seed"],
                              None)
        factors = []
        for name, spec in definition["parameters"].items():
            if "levels" in spec:
                factors.append(Factor(name, "levels", levels=tuple(spec["levels"])))
            else:
                integer = isinstance(spec["low"], int) and isinstance(spec["high"], int)
                factors.append(Factor(name, "integer" if integer else "real", spec["low"],
                                      spec["high"]))
        return cls(definition["kind"], tuple(factors), definition["samples"],
                   definition["seed"], definition.get("num_levels", 4))

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.factors]

    @property
    def size(self) -> int:
        """The number of points: ``samples`` (lhs), ``samples * (D + 2)`` (sobol),
        ``samples * (D + 1)`` (morris), the grid's size (factorial)."""
        extra = {"lhs": None, "sobol": 2, "morris": 1}.get(self.kind)
        if self.kind == "cases":
            return len(self.cases)
        if self.kind == "factorial":
            return math.prod(len(values) for values in self.sweep().values())
        return self.samples if extra is None else self.samples * (len(self.factors) + extra)

    def problem(self) -> dict:
        """SALib's problem: the parameters' names and bounds (module docstring)."""
        return {"num_vars": len(self.factors), "names": self.names,
                "bounds": [f.bounds for f in self.factors]}

    def sweep(self) -> dict:
        """A factorial design as a ``[sweep]``: each parameter's values."""
        return {f.name: f.grid(self.samples) for f in self.factors}

    def matrix(self) -> np.ndarray:
        """SALib's sample (one row per point, in SALib's order), from its seed."""
        problem = self.problem()
        if self.kind == "lhs":
            from SALib.sample import latin
            return latin.sample(problem, self.samples, seed=self.seed)
        if self.kind == "sobol":
            from SALib.sample import sobol
            return sobol.sample(problem, self.samples, calc_second_order=False, scramble=True,
                                seed=self.seed)
        if self.kind == "morris":
            from SALib.sample import morris
            return morris.sample(problem, self.samples, num_levels=self.num_levels,
                                 seed=self.seed)
        raise DesignError(f"a {self.kind} design has no SALib sample; see Design.sweep")

    def points(self, matrix: np.ndarray | None = None) -> list[dict]:
        """Each point's parameter values, in SALib's order (``matrix``: ``self.matrix()``);
        of a design of cases, the cases as listed."""
        if self.kind == "cases":
            return [dict(case) for case in self.cases]
        matrix = self.matrix() if matrix is None else matrix
        return [{f.name: f.value(x) for f, x in zip(self.factors, row)} for row in matrix]

    @classmethod
    def recorded(cls, definition: dict, where: str) -> "Design":
        """The design ``study.json`` (at ``where``) records, its points drawn again and
        checked against the digest recorded there."""
        design = cls.from_definition(definition)
        if design.definition(design.points())["digest"] != definition["digest"]:
            raise DesignError(f"{where}: this SALib draws other design points than the ones "
                              "the study was run with (its study.json digest); use the SALib "
                              "version that ran it")
        return design

    def definition(self, points: list[dict]) -> dict:
        """What ``study.json`` records of the design: its table, normalised, the number of
        its ``points`` and their digest, so that a folder is never resumed with other points
        (a SALib whose sampler changed)."""
        text = json.dumps(points, sort_keys=True, separators=(",", ":"))
        definition = {"kind": self.kind, "samples": self.samples, "seed": self.seed,
                      "parameters": {f.name: f.definition() for f in self.factors}}
        if self.kind == "morris":
            definition["num_levels"] = self.num_levels
        if self.kind == "cases":
            definition["cases"] = [dict(case) for case in self.cases]
        definition["points"] = len(points)
        definition["digest"] = hashlib.sha256(text.encode()).hexdigest()[:16]
        return definition
