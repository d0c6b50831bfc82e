"""Executes every notebook of a folder with nbclient (CTest: test_python_notebooks), each in
a fresh temporary working directory; fails on the first cell that raises."""

import glob
import os
import sys
import tempfile

import nbformat
from nbclient import NotebookClient


def main(folder, save=None):
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger note
    notebooks = sorted(glob.glob(os.path.join(folder, "*.ipynb")))
    if not notebooks:
        print("no notebooks in %s" % folder)
        return 1
    failed = 0
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        with tempfile.TemporaryDirectory(prefix="fogstudio-nb-") as cwd:
            client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}})
            try:
                client.execute()
                print("ok    %s" % os.path.basename(path))
                if save:
                    nbformat.write(nb, os.path.join(save, os.path.basename(path)))
            except Exception as e:  # CellExecutionError names the cell and the traceback
                failed += 1
                print("FAIL  %s\n%s" % (os.path.basename(path), e))
    return 1 if failed else 0


if __name__ == "__main__":
    # run_notebooks.py FOLDER [SAVE_DIR]: SAVE_DIR receives the executed notebooks.
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
