"""CodRep 2018: given a new Java line and a Java file, rank the file's lines by how likely each is the one
the new line replaced (features, a two-stage LightGBM lambdarank ranker, training and ranking commands)."""
