"""One ``rechain check`` run, from options to report lines, so the command only parses and prints.

``settings`` holds what the run was asked for, ``plan`` what it connects to and compares with,
``inputs`` the cases (corpus, saved failures, generated), ``loop`` the run itself,
``shrinking`` the minimal input per kind of disagreement and ``freezing`` the case written
for each.
"""
