package cmdutil

// RunbookPointer ends every command's help.
const RunbookPointer = "\nThe runbook, step by step, and what to read in each: docs/runbook.md\n"
