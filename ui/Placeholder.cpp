// replaced by the UI sources
