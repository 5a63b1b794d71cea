"""One module per rewrite rule; the pipeline decides their order."""
