"""The model: a SoC configuration (configs/*.toml), each IP's description (hw/ip/<ip>/data/) and
the RTL source lists, read, checked and typed. Every other layer works from these objects."""
