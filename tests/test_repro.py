"""The reproductions' readings (robustdiff.repro): computed from the papers' transcribed tables (issue 35), never typed in.
Fast: cached CSVs only."""
import json
from pathlib import Path
import numpy as np, pandas as pd, pytest
from robustdiff.repro import wins, slh16_table3_cells, summary_counts

NBS = Path(__file__).resolve().parents[1]/'nbs'
MP22, SLH16 = NBS/'results'/'mp22', NBS/'results'/'slh16'


def _notebook_text(name):
    "Sources and text outputs of a notebook, joined (what a reader sees)."
    nb = json.loads((NBS/name).read_text())
    parts = []
    for c in nb['cells']:
        parts.append(''.join(c['source']))
        for o in c.get('outputs', []):
            parts += [''.join(v) if isinstance(v, list) else str(v) for k, v in o.get('data', {}).items() if k.startswith('text/')]
            parts.append(''.join(o.get('text', '')))
    return '\n'.join(parts)


def test_mp22_table3_paper_has_1pl_best_per_data_set():
    "The paper's Table 3 has 1PL best on 11 of 12 data sets and above AvE on all 12: not a claim 'on the mean' only."
    p = pd.read_csv(MP22/'paper_table3.csv')
    p = p[p.dataset != 'Average'].set_index('dataset')
    w = wins(p, '1PL')
    assert (w['rows'], w['best'], w['above AvE']) == (12, 11, 12)
    text = _notebook_text('50_mp22.ipynb')
    assert 'holds on the mean, not data set by data set' not in text       # the old sentence, contradicted by the table
    assert 'is not transcribed' not in text


def test_wins_counts_ties_and_direction():
    t = pd.DataFrame({'a': [1.0, 2.0, np.nan], 'b': [1.0, 3.0, 0.0]})
    assert wins(t, 'a').to_dict() == {'rows': 2, 'best': 1, 'above b': 0}       # a tie is a win; the NaN row is not counted
    assert wins(t, 'a', higher=False)['best'] == 2
    with pytest.raises(ValueError, match='is not a column'): wins(t, 'c')


def test_slh16_table3_cells_use_the_papers_table():
    "sonar's SMO-Puk A0 is 86.63 % in [SLH16] Table 3 (not the 0.885 once quoted): ours (86.17 %) is within ±2 points."
    ours, paper = pd.read_csv(SLH16/'table3_ela2.csv'), pd.read_csv(SLH16/'paper_table3.csv')
    cells = slh16_table3_cells(ours, paper)
    assert summary_counts(cells)[1] == 4 * ours.dataset.nunique()
    son = cells.set_index(['dataset', 'model', 'quantity']).loc[('sonar', 'SVM-Puk', 'A0')]
    assert son.paper == pytest.approx(86.63)
    assert son.within == (abs(100 * ours.set_index(['dataset', 'model']).loc[('sonar', 'SVM-Puk'), 'acc_clean'] - 86.63) <= 2)
    # the count equals a direct cell-by-cell comparison of the two files
    direct = sum(abs(100 * r[f'acc_{"clean" if q == "A0" else "noisy"}'] - paper.set_index('dataset').loc[r.dataset, f"{q}_{'c45' if r.model == 'C4.5' else 'svm'}"]) <= 2 + 1e-9
                 for _, r in ours.iterrows() for q in ('A0', 'A10'))
    assert summary_counts(cells)[0] == direct
    text = _notebook_text('52_slh16.ipynb')
    assert '≈ 0.885' not in text and "'value': 0.885" not in text and '0 of 1 cells' not in text


def test_reproduction_summary_is_computed_from_the_table():
    from robustdiff.repro import reproduction_table, summary_line, summary_counts
    paper = pd.DataFrame({'k': range(6), 'value': np.linspace(0, 1, 6)})
    ours = paper.assign(value=paper.value + [0, 0.01, -0.06, 0.05, 0.2, np.nan])
    t = reproduction_table(paper, ours, 'k', tolerance=0.05, causes=lambda r: 'x')
    assert summary_counts(t) == (3, 6) and summary_line(t, label='T') == 'T: 3 of 6 cells within ±0.05'
    assert t.cause.tolist() == ['', '', 'x', '', 'x', 'x']
