"""Write the "Your run" page's stored examples (rlcore/studies/runs/): the miniature's runs that rlcore.EXAMPLES
names, trained from scratch and written as TRL's trainer_state.json or verl's JSON lines. About a minute or two
per run on one core. Usage: python scripts/make_run_examples.py [name ...]"""

import sys

from rlcore.studies import runexport

if __name__ == "__main__":
    for name in sys.argv[1:] or [n for n, (source, _, _) in runexport.EXAMPLES.items() if source == "zero"]:
        path = runexport.example_file(name)
        path.write_bytes(runexport.make_example(name))
        print(path, path.stat().st_size, "bytes")
