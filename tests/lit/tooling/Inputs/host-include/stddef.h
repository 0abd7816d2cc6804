// Same name as one of clang's headers: clang's must be found first.
#error "the host compiler's stddef.h shadowed clang's"
