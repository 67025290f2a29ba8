// The translation unit that compiles the tools' precompiled header (tools/CMakeLists.txt).
