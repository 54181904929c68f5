# Fails where a line of a Markdown file of the project is longer than 400 characters
# (details go in linked pages). Run as cmake -DROOT=<project> -P check_doc_lines.cmake.
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE docs ${ROOT}/*.md)
list(FILTER docs EXCLUDE REGEX "^${ROOT}/(build|\\.git)/")
set(long "")
# CMake's regular expressions have no {n} counts: 401 dots. They count bytes, so a
# line of 401 characters or more always matches (UTF-8 takes one byte or more each).
string(REPEAT "." 401 over)
foreach(doc ${docs})
  file(STRINGS ${doc} lines REGEX "^${over}")
  foreach(line ${lines})
    string(LENGTH "${line}" n)
    file(RELATIVE_PATH rel ${ROOT} ${doc})
    string(SUBSTRING "${line}" 0 60 start)
    string(APPEND long "  ${rel}: a line of ${n} characters: ${start}...\n")
  endforeach()
endforeach()
list(LENGTH docs count)
if(long)
  message(FATAL_ERROR "Lines over 400 characters:\n${long}")
endif()
message(STATUS "${count} Markdown files, no line over 400 characters")
