"""`kozyr play`: a match in the terminal, its table and what it keeps."""
