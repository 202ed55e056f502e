/* The OpenAPI document, embedded at build time so the server always serves
 * the contract it was built with (GET /openapi.yaml). */
    .section .rodata
    .global gq_openapi_yaml
    .global gq_openapi_yaml_end
gq_openapi_yaml:
    .incbin "openapi.yaml"
gq_openapi_yaml_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
