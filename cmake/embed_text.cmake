# cmake -DIN=file -DOUT=file.cpp -DSYMBOL=name -P embed_text.cmake
# Writes `extern const char name[]` holding the file's text, in chunks small
# enough for any compiler's string-literal limit.
file(READ ${IN} text)
string(LENGTH "${text}" n)
set(body "")
set(pos 0)
while(pos LESS n)
  string(SUBSTRING "${text}" ${pos} 8000 chunk)
  string(APPEND body "R\"cuforge_embed(${chunk})cuforge_embed\"\n")
  math(EXPR pos "${pos} + 8000")
endwhile()
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\n#include <cstddef>\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] =\n${body};\nextern const std::size_t ${SYMBOL}_size;\nconst std::size_t ${SYMBOL}_size = sizeof(${SYMBOL}) - 1;\n")
