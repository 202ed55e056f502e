/* The OpenAPI document, embedded at build time so the server always serves
 * the contract it was built with (GET /openapi.yaml). */
    .section .rodata
    .global gq_openapi_yaml
    .global gq_openapi_yaml_size
gq_openapi_yaml:
    .incbin "openapi.yaml"
gq_openapi_yaml_end:
    .byte 0
    .balign 8
/* Its length, computed by the assembler: C may not subtract the addresses
 * of two different objects. */
gq_openapi_yaml_size:
    .quad gq_openapi_yaml_end - gq_openapi_yaml
    .section .note.GNU-stack,"",@progbits
