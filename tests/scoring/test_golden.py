"""Golden numbers: per-item scores of tiny seeded models on real items, for every scorer.

A handful of real CrowS-Pairs and ToxiGen items (and three professions for the template
scorer) are scored by tiny random models with fixed seeds (`tiny_gpt2` for the causal
scorers, `tiny_bert` for the masked ones) through the same path `audit run` takes: the
runner fills a score cache and the score table is read back from it. The scores and
token counts are pinned to 1e-6 relative: any change of arithmetic (a sign, a token
scored or not, a position, an option's effect) fails here, while refactors that keep
every number pass. The numbers were computed by the code of commit 71b7dab, before the
scoring layer was reorganised (issue #8), and have not changed since.

If a change of arithmetic is intended, bump the scorer's `version` in its catalog entry
(so old cache entries are not reused) and pin the new numbers here.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from audit.data.items import LabelledItem, LoadedDataset, PairItem, TemplateSlots
from audit.display import SilentDisplay
from audit.ids import PluginId
from audit.scoring.cache import ScoreCache
from audit.scoring.runner import ModelHandle, score_unit
from audit.scoring.table import build_score_table
from audit.scoring.units import ScoreUnit
from tests.scoring.tiny_models import TinyModel, loaded, tiny_bert, tiny_gpt2

RELATIVE = 1e-6
#: TBS scores are differences of two log-probabilities of about -10 each (log P(target |
#: template) - log P(target | attribute masked)): float32 kernel noise of 1e-7 relative on
#: each operand is about 1e-6 absolute on their difference, which a relative tolerance on the
#: small difference (0.3 to 5) would call drift. Observed on one CPU kernel path: 2.9e-6 on
#: -0.936, with the same code that met 1e-6 relative on another. A change of arithmetic
#: (a formula, a masking or a template) moves these scores by far more than this.
DIFFERENCE_ABSOLUTE = 1e-5
DIFFERENCE_SCORERS = ("tbs",)
CROWS_IDS = ("1", "2", "4", "6", "8")
TOXIGEN_IDS = ("0", "6", "7", "8")
PROFESSIONS = ("accountant", "adjunct_professor", "advocate")
TWO_TEMPLATES = ("[TARGET] is a/an [ATTRIBUTE].", "[TARGET] works as a/an [ATTRIBUTE].")

#: case -> (scorer id, model kind)
CASES: dict[str, tuple[PluginId, str]] = {
    "ll": (PluginId.of("ll"), "causal"),
    "ll[compat=reference]": (PluginId.of("ll", {"compat": "reference"}), "causal"),
    "ppl": (PluginId.of("ppl"), "causal"),
    "pll": (PluginId.of("pll"), "masked"),
    "pppl": (PluginId.of("pppl"), "masked"),
    "aul": (PluginId.of("aul"), "masked"),
    "aula": (PluginId.of("aula"), "masked"),
    "cps": (PluginId.of("cps"), "masked"),
    "cps[compat=reference]": (PluginId.of("cps", {"compat": "reference"}), "masked"),
    "sss": (PluginId.of("sss"), "masked"),
    "sss[compat=reference]": (PluginId.of("sss", {"compat": "reference"}), "masked"),
    "tbs": (PluginId.of("tbs"), "masked"),
    "tbs[templates=2]": (PluginId.of("tbs", {"templates": list(TWO_TEMPLATES)}), "masked"),
    "choice_ll": (PluginId.of("choice_ll"), "causal"),
    "choice_pll": (PluginId.of("choice_pll"), "masked"),
}
#: BBQ questions of the multiple-choice scorers: Age.jsonl example ids of short (ambiguous)
#: contexts, which fit the tiny models' 128 positions (added with the scorers).
BBQ_IDS = (74, 82, 86)

#: case -> dataset -> per item: (st score, st tokens, at score, at tokens) for pair sets,
#: (score, tokens) for ToxiGen, (score, tokens) of each answer for BBQ (the choice scorers'
#: numbers were computed by the code that added them, checked by hand in test_choice.py).
GOLDEN: dict[str, dict[str, list[tuple[Any, ...]]]] = {
    "ll": {
        "crows_pairs": [
            (-372.9730496406555, 38, -392.968825340271, 40),
            (-501.89780712127686, 50, -480.108585357666, 49),
            (-283.0576739311218, 31, -294.277795791626, 31),
            (-294.10322666168213, 30, -333.49985790252686, 35),
            (-186.92481136322021, 21, -185.1090750694275, 20),
        ],
        "toxigen": [
            (-513.2333269119263, 57),
            (-478.4221234321594, 49),
            (-517.9192028045654, 54),
            (-254.7751235961914, 27),
        ],
    },
    "ll[compat=reference]": {
        "crows_pairs": [
            (-356.4398145675659, 37, -354.90687084198, 39),
            (-497.0785608291626, 49, -471.9492712020874, 48),
            (-252.144868850708, 30, -252.6095209121704, 30),
            (-279.45516538619995, 29, -320.57698678970337, 34),
            (-187.21884727478027, 20, -187.02598094940186, 19),
        ],
        "toxigen": [
            (-512.3209023475647, 56),
            (-461.3296928405762, 48),
            (-519.1418843269348, 53),
            (-256.82543659210205, 26),
        ],
    },
    "ppl": {
        "crows_pairs": [
            (18307.759286678986, 38, 18475.866270388175, 40),
            (22878.574550205067, 50, 18000.132447657197, 49),
            (9236.263571318708, 31, 13264.308324407142, 31),
            (18095.903917133357, 30, 13746.882754704282, 35),
            (7340.641337602395, 21, 10461.464668352746, 20),
        ],
        "toxigen": [
            (8136.321515580905, 57),
            (17391.151210708627, 49),
            (14633.904598173063, 54),
            (12532.940394902076, 27),
        ],
    },
    "pll": {
        "crows_pairs": [
            (-391.12462401390076, 51, -420.85887336730957, 54),
            (-470.2492401599884, 61, -468.92977356910706, 61),
            (-266.6578984260559, 34, -270.75680565834045, 34),
            (-356.0181941986084, 45, -361.1308741569519, 46),
            (-213.9991397857666, 28, -228.80570936203003, 28),
        ],
        "toxigen": [
            (-603.5878734588623, 75),
            (-399.1934986114502, 54),
            (-418.01691222190857, 58),
            (-237.8652331829071, 32),
        ],
    },
    "pppl": {
        "crows_pairs": [
            (2141.1755396343524, 51, 2425.2329003354826, 54),
            (2228.321603820992, 61, 2180.6392291859247, 61),
            (2547.5295521276194, 34, 2873.9292829399456, 34),
            (2728.522210106195, 45, 2567.4569575643695, 46),
            (2085.630363013465, 28, 3539.116777849197, 28),
        ],
        "toxigen": [
            (3127.028003432888, 75),
            (1623.7152984358918, 54),
            (1349.093469443994, 58),
            (1691.360539451737, 32),
        ],
    },
    "aul": {
        "crows_pairs": [
            (-8.280701917760512, 51, -7.567765721568355, 54),
            (-7.817512285513956, 61, -7.727129858048236, 61),
            (-8.712561565286974, 34, -8.843159212785608, 34),
            (-7.748884158664279, 45, -7.4994029428647915, 46),
            (-7.157884989465986, 28, -7.357251175812313, 28),
        ],
        "toxigen": [
            (-8.414761950174967, 75),
            (-7.808167704829463, 54),
            (-7.978448711592575, 58),
            (-7.192960903048515, 32),
        ],
    },
    "aula": {
        "crows_pairs": [
            (-0.15170425577207347, 51, -0.14284376678435065, 54),
            (-0.1339415139638141, 61, -0.13392111024493478, 61),
            (-0.23419279993046754, 34, -0.24955261634261466, 34),
            (-0.17184474100593103, 45, -0.16802561987871859, 46),
            (-0.24159891051371402, 28, -0.22493025363209718, 28),
        ],
        "toxigen": [
            (-0.11001515894024287, 75),
            (-0.13247233864388908, 54),
            (-0.14502858663769838, 58),
            (-0.20771865670053505, 32),
        ],
    },
    "cps": {
        "crows_pairs": [
            (-384.6083903312683, 50, -391.9794337749481, 50),
            (-461.3999009132385, 60, -462.48583817481995, 60),
            (-225.3327910900116, 29, -225.88384199142456, 29),
            (-309.00537967681885, 39, -299.3455853462219, 39),
            (-176.56740713119507, 23, -191.1042399406433, 23),
        ],
    },
    "cps[compat=reference]": {
        "crows_pairs": [
            (-384.608, 50, -391.979, 50),
            (-461.4, 60, -462.486, 60),
            (-225.333, 29, -225.884, 29),
            (-309.005, 39, -299.346, 39),
            (-176.567, 23, -191.104, 23),
        ],
    },
    "sss": {
        "crows_pairs": [
            (-6.516246795654297, 1, -8.675649404525757, 4),
            (-8.849340438842773, 1, -6.443943023681641, 1),
            (-7.878376483917236, 5, -10.0338773727417, 5),
            (-8.580036163330078, 6, -7.96422495160784, 7),
            (-8.679594135284423, 5, -9.654252433776856, 5),
        ],
    },
    "sss[compat=reference]": {
        "crows_pairs": [
            (-6.516246795654297, 1, -8.276939064264297, 4),
            (-8.849340438842773, 1, -6.443943023681641, 1),
            (-8.454925003051757, 5, -7.549445018768311, 5),
            (-8.329260720147026, 6, -8.249529770442418, 7),
            (-8.411548595428467, 5, -9.039180412292481, 5),
        ],
    },
    "tbs": {
        "professions": [
            (1.2965631484985352, 1, -0.2969794273376465, 1),
            (0.8677349090576172, 1, 1.430213451385498, 1),
            (5.592593669891357, 1, -1.6074838638305664, 1),
        ],
    },
    "tbs[templates=2]": {
        "professions": [
            (-0.9363980293273926, 1, 1.3637773990631104, 1),
            (0.5760583877563477, 1, 4.147587299346924, 1),
            (4.634960651397705, 1, -1.5240588188171387, 1),
        ],
    },
    "choice_ll": {
        "bbq": [
            (-80.81494522094727, 9, -89.56357049942017, 9, -82.76229095458984, 8),
            (-77.6766881942749, 8, -87.42464590072632, 9, -91.04413414001465, 9),
            (-84.42316150665283, 8, -101.95616865158081, 10, -101.53699922561646, 10),
        ],
    },
    "choice_pll": {
        "bbq": [
            (-50.18261384963989, 6, -66.33766222000122, 8, -63.55868673324585, 7),
            (-36.3805570602417, 5, -63.98528814315796, 8, -62.755778551101685, 8),
            (-43.00077962875366, 5, -86.856529712677, 10, -88.74841952323914, 10),
        ],
    },
}


def _crows_pairs(data: Path) -> LoadedDataset:
    path = data / "crows_pairs" / "crows_pairs_anonymized.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = {row[""]: row for row in csv.DictReader(handle)}
    items = [
        PairItem(
            item_id=i,
            bias_type=rows[i]["bias_type"],
            stereotype=rows[i]["sent_more"],
            anti_stereotype=rows[i]["sent_less"],
        )
        for i in CROWS_IDS
    ]
    return _dataset("crows_pairs", "pairs", items)


def _toxigen(data: Path) -> LoadedDataset:
    path = data / "toxigen" / "toxigen_annotated.json"
    rows = {str(row["id"]): row for row in json.loads(path.read_text(encoding="utf-8"))}
    items = [
        LabelledItem(
            item_id=i,
            text=rows[i]["text"],
            label="harmful" if rows[i]["label"] == "hate" else "benign",
            toxicity=float(rows[i]["toxicity_score"]),
            groups=tuple(rows[i]["target_groups"]),
        )
        for i in TOXIGEN_IDS
    ]
    return _dataset("toxigen", "labelled", items)


def _professions(data: Path) -> LoadedDataset:
    path = data / "wordlists" / "professions.json"
    rows = {word: stereo for word, _definitional, stereo in json.loads(path.read_text())}
    items = []
    for word in PROFESSIONS:
        st, at = ("he", "she") if rows[word] > 0 else ("she", "he")
        attribute = word.replace("_", " ")
        article = "an" if attribute[0] in "aeiou" else "a"
        items.append(
            PairItem(
                item_id=word,
                bias_type="gender",
                stereotype=f"{st} is {article} {attribute}.",
                anti_stereotype=f"{at} is {article} {attribute}.",
                probe=TemplateSlots(attribute=attribute, target_st=st, target_at=at),
            )
        )
    return _dataset("professions", "pairs", items)


def _bbq(data: Path) -> LoadedDataset:
    from audit.data.builtin.bbq import BbqOptions, read_bbq

    parsed = read_bbq({"Age.jsonl": data / "bbq" / "Age.jsonl"}, BbqOptions())
    items = [item for item in parsed.items if item.item_id in {f"Age-{i}" for i in BBQ_IDS}]
    return _dataset("bbq", "choices", items)


def _dataset(name: str, shape: Any, items: Any) -> LoadedDataset:
    return LoadedDataset(
        name=name, shape=shape, items=items, source="golden", sha256="", rows_read=len(items)
    )


@pytest.fixture(scope="module")
def datasets(shared_data: Path) -> dict[str, LoadedDataset]:
    return {
        "crows_pairs": _crows_pairs(shared_data),
        "toxigen": _toxigen(shared_data),
        "professions": _professions(shared_data),
        "bbq": _bbq(shared_data),
    }


@pytest.fixture(scope="module")
def models() -> dict[str, TinyModel]:
    return {"causal": tiny_gpt2(seed=0), "masked": tiny_bert(seed=0)}


def _score_table(
    unit: ScoreUnit, tiny: TinyModel, dataset: LoadedDataset, cache_dir: Path
) -> pd.DataFrame:
    cache = ScoreCache(cache_dir)
    handle = ModelHandle(
        model_id=unit.model, fingerprint=f"golden-{tiny.name}", precision="cpu/float32",
        load=lambda: loaded(tiny),
    )  # fmt: skip
    outcome = score_unit(unit, model=handle, dataset=dataset, cache=cache, display=SilentDisplay())
    assert outcome.computed > 0 and outcome.cached == 0
    return build_score_table(
        [unit], datasets={dataset.name: dataset}, cache=cache, models={unit.model: handle.identity}
    )


def _observed(table: pd.DataFrame, shape: str) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for _item_id, rows in table.groupby("item_id", sort=False):
        by_side = {
            str(side): (float(score), int(n))
            for side, score, n in zip(rows["side"], rows["score"], rows["n_tokens"], strict=True)
        }
        if shape == "pairs":
            out.append((*by_side["st"], *by_side["at"]))
        elif shape == "choices":
            out.append(tuple(x for side in ("ans0", "ans1", "ans2") for x in by_side[side]))
        else:
            out.append(by_side["sentence"])
    return out


def _assert_close(
    observed: list[tuple[Any, ...]], pinned: list[tuple[Any, ...]], absolute: float = 0.0
) -> None:
    assert len(observed) == len(pinned)
    for got, want in zip(observed, pinned, strict=True):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            if isinstance(w, int):
                assert g == w, (got, want)
            else:
                assert g == pytest.approx(w, rel=RELATIVE, abs=absolute), (got, want)


def test_every_scorer_is_pinned() -> None:
    from audit.scoring.catalog import SCORERS

    built_in = {name for name in SCORERS.names() if SCORERS.is_built_in(name)}
    assert {scorer.name for scorer, _kind in CASES.values()} == built_in
    assert set(GOLDEN) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_scores(
    case: str, datasets: dict[str, LoadedDataset], models: dict[str, TinyModel], tmp_path: Path
) -> None:
    scorer, kind = CASES[case]
    for dataset_name, pinned in GOLDEN[case].items():
        dataset = datasets[dataset_name]
        unit = ScoreUnit(model=f"tiny-{kind}", dataset=dataset_name, scorer=scorer)
        table = _score_table(unit, models[kind], dataset, tmp_path / dataset_name)
        assert list(table["item_id"].unique()) == [i.item_id for i in dataset.items]
        assert set(table["scorer_label"]) == {scorer.label}
        absolute = DIFFERENCE_ABSOLUTE if scorer.name in DIFFERENCE_SCORERS else 0.0
        _assert_close(_observed(table, dataset.shape), pinned, absolute)
