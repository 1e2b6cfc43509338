// Placeholder; see the owner's commits.
