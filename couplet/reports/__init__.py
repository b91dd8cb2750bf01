"""The report layer shared by the flows: result lines of the firmware, statistics, goal rows,
tables and plots, and the files under build/reports/."""
