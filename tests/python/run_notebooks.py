"""Executes every notebook of a folder with nbclient (CTest: test_python_notebooks), each in
a fresh temporary working directory; fails on the first cell that raises."""

import glob
import os
import sys
import tempfile

import nbformat
from nbclient import NotebookClient


def main(folder):
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
            except Exception as e:  # CellExecutionError names the cell and the traceback
                failed += 1
                print("FAIL  %s\n%s" % (os.path.basename(path), e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
