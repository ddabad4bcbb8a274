"""What a persona knows: the prompt's context, the gardener and its proposals, voice, the map."""
