"""For tests: a TestCase whose results land in a fresh temporary folder (the run's folder,
result_files.RUN_DIR), restored and removed after each test, so that nothing a test writes reaches results/data/.

    class MyTest(scratch_results_dir.ScratchResultsDirTest):
        def test_x(self):
            result_files.write_results("fake_bench", rows)     # into self.directory.name
"""

import os
import tempfile
import unittest


class ScratchResultsDirTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.saved = os.environ.get("NETBENCH_RUN_DIR")
        os.environ["NETBENCH_RUN_DIR"] = self.directory.name

    def tearDown(self):
        if self.saved is None:
            del os.environ["NETBENCH_RUN_DIR"]
        else:
            os.environ["NETBENCH_RUN_DIR"] = self.saved
        self.directory.cleanup()
