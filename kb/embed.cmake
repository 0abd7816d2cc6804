# Writes OUT: a C++ file holding SEED and SCHEMA as raw string literals.
file(READ ${SEED} _seed)
file(READ ${SCHEMA} _schema)
foreach(_t IN ITEMS _seed _schema)
  string(FIND "${${_t}}" ")kbcc_embed\"" _pos)
  if(NOT _pos EQUAL -1)
    message(FATAL_ERROR "kb/embed.cmake: input contains the raw-string delimiter")
  endif()
endforeach()
file(WRITE ${OUT}.tmp "// Generated from kb/seed_kb.json and kb/kb.schema.json by kb/embed.cmake.\n"
  "#include \"kb/resources.h\"\n"
  "namespace kbcc::kb {\n"
  "const char *const kSeedKbJson = R\"kbcc_embed(${_seed})kbcc_embed\";\n"
  "const char *const kKbSchemaJson = R\"kbcc_embed(${_schema})kbcc_embed\";\n"
  "}  // namespace kbcc::kb\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
