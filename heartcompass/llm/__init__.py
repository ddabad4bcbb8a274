"""Language models: the providers, structured output, the Ark SDK, the prompt files."""
