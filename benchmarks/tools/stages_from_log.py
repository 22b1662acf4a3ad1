"""Add the stage table a `robustdiff report` run printed (its log) to a `measure.py` result.

    python benchmarks/tools/stages_from_log.py /tmp/letter.log benchmarks/results/report_letter_onepass.json
"""
import json, re, sys
from pathlib import Path

def stages(text:str)->dict:
    text = text.replace('\r', '\n')
    out = {}
    m = re.search(r'fits of every stage in one schedule: ([\d.]+) s', text)
    if m: out['one_schedule'] = float(m.group(1))
    for name, status, sec in re.findall(r'\[\d+/\d+\] (\w+): (\w+) \(([\d.]+) s\)', text): out[name] = float(sec)
    return out

if __name__ == '__main__':
    log, res = Path(sys.argv[1]), Path(sys.argv[2])
    r = json.loads(res.read_text()); r['stages_s'] = stages(log.read_text(errors='replace'))
    res.write_text(json.dumps(r, indent=1)); print(json.dumps(r['stages_s']))
