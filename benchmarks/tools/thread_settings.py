"""The thread settings a benchmark ran with (issue 36): the thread environment variables, the BLAS/OpenMP pools of
this process (threadpoolctl) and, with n_jobs > 1, those of a loky worker of the same joblib pool the report uses, as
seen inside a task (where `robustdiff.responses._one_thread` holds them to one thread).

    from thread_settings import thread_settings, show_threads
    show_threads(thread_settings(n_jobs=2))
"""
import os

ENV = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'NUMBA_NUM_THREADS')

def _pools()->dict:
    "This process: the thread variables and {library (api): threads}."
    from threadpoolctl import threadpool_info
    return dict(pid=os.getpid(), env={k: os.environ.get(k) for k in ENV if os.environ.get(k) is not None},
                pools={f"{i.get('internal_api')} ({i.get('user_api')})": i.get('num_threads') for i in threadpool_info()})

def _in_task()->dict:
    "A worker, inside a task: the pools as a report's fit sees them (`_one_thread`)."
    from robustdiff._folds import one_thread as _one_thread
    import sklearn.ensemble  # noqa: F401  (loads the OpenMP runtime scikit-learn's forests use)
    outside = _pools()
    with _one_thread(): inside = _pools()
    return dict(worker=outside, inside_task=inside['pools'])

def thread_settings(n_jobs:int=1)->dict:
    "The settings of this process and (n_jobs > 1) of a loky worker, before and inside a task."
    import sklearn.ensemble  # noqa: F401
    out = dict(cpus=os.cpu_count(), n_jobs=n_jobs, parent=_pools())
    if n_jobs and n_jobs != 1:
        from joblib import Parallel, delayed
        out.update(Parallel(n_jobs=n_jobs)(delayed(_in_task)() for _ in range(1))[0])
    return out

def show_threads(s:dict, file=None)->None:
    "Print the settings in three lines."
    import sys
    f = file or sys.stdout
    print(f"threads: {s['cpus']} CPUs, n_jobs={s['n_jobs']}; parent env {s['parent']['env'] or '{}'} pools {s['parent']['pools']}", file=f, flush=True)
    if 'worker' in s:
        print(f"         loky worker env {s['worker']['env'] or '{}'} pools {s['worker']['pools']}", file=f, flush=True)
        print(f"         inside a task {s['inside_task']}", file=f, flush=True)
