// placeholder until the hook is written
