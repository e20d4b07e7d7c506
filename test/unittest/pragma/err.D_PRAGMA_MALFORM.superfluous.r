dtrace: failed to compile script err.D_PRAGMA_MALFORM.superfluous.d: [D_PRAGMA_MALFORM] line 2: superfluous arguments specified for #pragma option
