# Writes the text of INPUT to OUTPUT as the body of a C++ raw string literal (R"KPCUDA(...)KPCUDA"),
# for `#include` right after an `=`. Run by kernelpad_embed_cuda (core/CMakeLists.txt) as
# cmake -DINPUT=... -DOUTPUT=... -P EmbedText.cmake; OUTPUT is rewritten only when its text
# changes, so an unchanged source recompiles nothing.
file(READ "${INPUT}" text)
if(text MATCHES "\\)KPCUDA\"")
    message(FATAL_ERROR "${INPUT} contains )KPCUDA\", which would end the raw string early")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${INPUT} at build time; edit that file, not this one.\nR\"KPCUDA(${text})KPCUDA\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
