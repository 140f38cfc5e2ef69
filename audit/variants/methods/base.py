"""What a variant method is: the parts it trains (one model, or one per ratio), the
training data of each part, and the objective. Methods never load a model; the variant
runner trains what they describe."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditUserError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from audit.models.self_debias import SelfDebiasSettings
    from audit.variants.corpus import Corpus
    from audit.variants.objective import Objective, TrainingData
    from audit.variants.posthoc import ProjectionFit, ProjectionSetup
    from audit.variants.wordlists import GenderWordLists


@dataclass(frozen=True)
class VariantPart:
    """One model a variant entry trains: `suffix` is appended to the entry id."""

    suffix: str = ""
    ratio: float | None = None


@dataclass(frozen=True)
class MethodContext:
    """What a method needs besides its options: where word lists are found, the seed,
    and where in the spec the variant is (for error messages)."""

    data_dir: Path | None
    base_dir: Path
    seed: int
    loc: str  # e.g. "variants[1]"

    def path(self, value: str) -> Path:
        path = Path(value).expanduser()
        return path if path.is_absolute() else self.base_dir / path

    def word_lists(self, folder: str | None) -> GenderWordLists:
        """The paired gender word lists: the option's folder, else <data dir>/wordlists."""
        from audit.variants.wordlists import load_gender_word_lists, load_word_list_folder

        if folder is not None:
            path = self.path(folder)
            if not path.is_dir():
                raise AuditUserError(
                    f"{self.loc}.options.word_lists: folder {path} does not exist; give a "
                    "folder holding gn_glove_male.txt and gn_glove_female.txt"
                )
            return load_word_list_folder(path)
        return load_gender_word_lists(self.require_data_dir("the gender word lists"))

    def require_data_dir(self, what: str) -> Path:
        if self.data_dir is None or not self.data_dir.is_dir():
            raise AuditUserError(
                f"{self.loc}: {what} are read from the shared data folder, and none was "
                f"found ({self.data_dir}); pass --data-dir ../shared/data (or set "
                "AUDIT_DATA_DIR), or give the method's word-list options"
            )
        return self.data_dir


def single_part(options: object) -> list[VariantPart]:
    """The parts of a method that trains one model whatever its options."""
    return [VariantPart()]


@dataclass(frozen=True)
class Rehearsal:
    """A stand-in of a post-hoc fit's computation beyond encoding, for timing: `run(d)`
    does one unit of it on random vectors of the fit's shape and hidden size d, the fit
    does `count` such units, and `unit` names one ('INLP iteration')."""

    run: Callable[[int], object]
    count: int
    unit: str


@dataclass(frozen=True)
class VariantMethod:
    """A method module's three functions (each module ends with `METHOD = VariantMethod(...)`):
    the parts it trains (`single_part` for one model), each part's training data (the
    corpus sentences, or the method's own data in `TrainingData.own`), and the training
    objective (its own builder and settings: `audit.variants.objective`). Built-ins and
    plug-ins go through these same functions. A post-hoc method (INLP, SentenceDebias)
    also gives `fit`: it is not trained; `fit` computes, once, the projection of the base
    model's last hidden states from its sentences by label (`audit.variants.labelled_data`,
    `audit.variants.posthoc`), and the objective is never run; and
    `work`: what `fit` computes, in words, for `audit plan` (from its options and data:
    'projection from 3,000 corpus sentences (...), 80 INLP iterations, no training');
    and `rehearsal`: for `audit plan`'s time estimate, `fit`'s own computation after the
    sentences are encoded, rebuilt on random vectors of the real shape (`Rehearsal`).
    A scoring-time method (Self-Debias) gives `scoring_settings` instead: the settings
    stored with the base model's files and applied by the scorers; it reads no corpus
    (its entry says `needs_corpus=False`), and nothing is trained or computed."""

    parts: Callable[[Any], list[VariantPart]]
    training_data: Callable[[Corpus, Any, VariantPart, MethodContext], TrainingData]
    objective: Callable[[Any], Objective]
    fit: Callable[[ProjectionSetup], ProjectionFit] | None = None
    work: Callable[[Any, TrainingData], str] | None = None
    rehearsal: Callable[[Any, TrainingData], Rehearsal] | None = None
    scoring_settings: Callable[[Any], SelfDebiasSettings] | None = None


def options_of(model: type[BaseModel], options: dict[str, Any]) -> Any:
    """Validated options (the spec check has already reported any problem)."""
    return model.model_validate(options)


def projection_method(
    kind: str,
    training_data: Callable[[Corpus, Any, VariantPart, MethodContext], TrainingData],
    fit: Callable[[ProjectionSetup], ProjectionFit],
    work: Callable[[Any, TrainingData], str],
    rehearsal: Callable[[Any, TrainingData], Rehearsal],
) -> VariantMethod:
    """A post-hoc projection method (INLP, SentenceDebias): one part, its labelled
    sentences, and its `fit`, `work` and `rehearsal`; its objective (of `kind`) only
    names it, since a projection is never trained."""

    def objective(options: object) -> Objective:
        from audit.variants.objective import Objective

        return Objective(kind=kind)

    return VariantMethod(
        parts=single_part,
        training_data=training_data,
        objective=objective,
        fit=fit,
        work=work,
        rehearsal=rehearsal,
    )
