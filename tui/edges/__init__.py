"""What reaches xtui from outside, made safe at the edge: files opened only when regular and read within bounds
(``regular_files``, ``bounded_parse``), and text from a file, a server or a recording made printable before it reaches
a terminal (``safe_text``)."""
