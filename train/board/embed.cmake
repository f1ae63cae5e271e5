# Writes the C file OUT defining `const char NAME[]`: the bytes of the file IN and a NUL (qkv
# board's page, board_page.html, built into qkv; a byte array because a string literal that
# long is beyond what ISO C requires a compiler to take).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* Written by train/board/embed.cmake from ${IN}. */\nconst char ${NAME}[] = {\n${bytes}0x00};\n")
