{
  "targets": [
    {
      "target_name": "opal_native",
      "sources": ["native/src/addon.c", "native/src/keccak.c", "native/src/u256.c", "native/src/interp.c", "native/src/trie.c"],
      "include_dirs": ["native/src"],
      "cflags": ["-O3", "-funroll-loops", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_VERSION=8"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-funroll-loops", "-std=c11"] }
    }
  ]
}
