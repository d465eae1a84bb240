"""Studies: study files, the sweep runner and its run files, results and the main job."""
