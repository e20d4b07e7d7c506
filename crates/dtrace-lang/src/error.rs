//! Compile errors: DTrace's error tags (shown with `-xerrtags`) and the
//! message text, tied to the line of D source they concern.

use std::fmt;

macro_rules! tags {
    ($($name:ident),* $(,)?) => {
        /// DTrace's compiler error tags, named as DTrace names them.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Tag { $($name),* }

        impl Tag {
            pub fn name(self) -> &'static str {
                match self { $(Tag::$name => stringify!($name)),* }
            }
        }
    };
}

tags! {
    D_SYNTAX,
    D_ALLOCA_INCOMPAT,
    D_ALLOCA_SIZE,
    D_ARR_BOUNDS,
    D_ATTR_MIN,
    D_DECL_LOCASSC,
    D_DECL_PROTO_NAME,
    D_DECL_PROTO_TYPE,
    D_DECL_PROTO_VARARGS,
    D_DECL_PROTO_VOID,
    D_PRAGERR,
    D_PRAGMA_UNUSED,
    D_PRAGMA_SCOPE,
    D_EMPTY,
    D_PRAGMA_MALFORM,
    D_PRAGMA_INVAL,
    D_PRAGMA_OPTSET,
    D_PRAGCTL_INVAL,
    D_CHR_BADESC,
    D_CHR_NL,
    D_CHR_NULL,
    D_CHR_OFLOW,
    D_STR_BADESC,
    D_STR_NL,
    D_INT_DIGIT,
    D_INT_OFLOW,
    D_IDENT_UNDEF,
    D_IDENT_BADREF,
    D_VAR_UNDEF,
    D_MACRO_UNDEF,
    D_MACRO_UNUSED,
    D_PDESC_ZERO,
    D_PROC_NAME,
    D_PROC_OFF,
    D_PROC_ALIGN,
    D_PDESC_INVAL,
    D_PSPEC_UNDEF,
    D_OP_INT,
    D_DIV_ZERO,
    D_PRED_SCALAR,
    D_OP_SCALAR,
    D_OP_ARITH,
    D_OP_LVAL,
    D_OP_WRITE,
    D_OP_INCOMPAT,
    D_OP_ARRFUN,
    D_IDENT_AMBIG,
    D_OP_VFPTR,
    D_OP_ACT,
    D_OP_DYN,
    D_CG_EXPR,
    D_CG_DYN,
    D_OP_STRING,
    D_OP_ARRVAR,
    D_CAST_INVAL,
    D_TYPE_ERR,
    D_TYPE_MISMATCH,
    D_DECL_TYPE,
    D_DECL_IDRED,
    D_DECL_SCOPE,
    D_DECL_USELESS,
    D_DECL_BAD,
    D_DECL_CLASS,
    D_DECL_BADCLASS,
    D_DECL_PARMCLASS,
    D_DECL_COMBO,
    D_DECL_CHARATTR,
    D_DECL_VOIDATTR,
    D_DECL_SIGNINT,
    D_DECL_LONGINT,
    D_DECL_MNAME,
    D_DECL_DYNOBJ,
    D_UNKNOWN,
    D_VAR_UNSUP,
    D_PROTO_LEN,
    D_PROTO_ARG,
    D_ARGS_IDX,
    D_REGS_IDX,
    D_ARGS_MULTI,
    D_ARGS_TYPE,
    D_ARGS_NONE,
    D_AGG_FUNC,
    D_AGG_SCALAR,
    D_AGG_MDIM,
    D_AGG_REDEF,
    D_AGG_NULL,
    D_KEY_TYPE,
    D_ARR_BADREF,
    D_ARR_LOCAL,
    D_PRINTF_ARG_FMT,
    D_PRINTF_ARG_TYPE,
    D_PRINTF_ARG_EXTRA,
    D_PRINTF_ARG_PROTO,
    D_PRINTF_DYN_PROTO,
    D_PRINTF_DYN_TYPE,
    D_PRINTF_AGG_CONV,
    D_PRINTF_FMT_EMPTY,
    D_PRINTA_PROTO,
    D_PRINTA_AGGARG,
    D_PRINTA_AGGPROTO,
    D_PRINTA_AGGKEY,
    D_TRACE_VOID,
    D_TRACE_DYN,
    D_TRACE_AGG,
    D_EXIT_SPEC,
    D_CLEAR_PROTO,
    D_CLEAR_AGGARG,
    D_TRUNC_PROTO,
    D_TRUNC_AGGARG,
    D_TRUNC_SCALAR,
    D_NORMALIZE_AGGARG,
    D_PRINT_VOID,
    D_PRINT_AGG,
    D_TRACEMEM_ADDR,
    D_TRACEMEM_SIZE,
    D_TRACEMEM_DYNSIZE,
    D_NORMALIZE_SCALAR,
    D_LQUANT_BASETYPE,
    D_LQUANT_BASEVAL,
    D_LQUANT_LIMTYPE,
    D_LQUANT_LIMVAL,
    D_LQUANT_MISMATCH,
    D_LQUANT_STEPTYPE,
    D_LQUANT_STEPVAL,
    D_LQUANT_STEPLARGE,
    D_LQUANT_STEPSMALL,
    D_LQUANT_MATCHBASE,
    D_LQUANT_MATCHLIM,
    D_LQUANT_MATCHSTEP,
    D_LLQUANT_FACTORTYPE,
    D_LLQUANT_FACTORVAL,
    D_LLQUANT_LMAGTYPE,
    D_LLQUANT_LMAGVAL,
    D_LLQUANT_HMAGTYPE,
    D_LLQUANT_HMAGVAL,
    D_LLQUANT_STEPTYPE,
    D_LLQUANT_STEPVAL,
    D_LLQUANT_MATCHFACTOR,
    D_LLQUANT_MATCHLMAG,
    D_LLQUANT_MATCHHMAG,
    D_LLQUANT_MATCHSTEPS,
    D_QUANT_PROTO,
    D_ACT_SPEC,
    D_FUNC_UNDEF,
    D_FUNC_IDENT,
    D_STRINGOF_TYPE,
    D_ACTION_NOTSUP,
    D_NOTSUP,
    D_STACK_SIZE,
    D_USTACK_FRAMES,
    D_USTACK_STRSIZE,
    D_SPEC_SPEC,
    D_SPEC_COMM,
    D_SPEC_DREC,
    D_AGG_SPEC,
    D_AGG_COMM,
    D_COMM_DREC,
    D_DREC_COMM,
    // Types, objects in memory and declarations of types.
    D_OP_PTR,
    D_OP_SOU,
    D_OP_INCOMPLETE,
    D_TYPE_MEMBER,
    D_DEREF_NONPTR,
    D_DEREF_VOID,
    D_DEREF_FUNC,
    D_ADDROF_VAR,
    D_ADDROF_LVAL,
    D_ADDROF_BITFIELD,
    D_SIZEOF_TYPE,
    D_SIZEOF_BITFIELD,
    D_SYM_NOTYPES,
    D_DECL_ARRNULL,
    D_DECL_ARRSUB,
    D_DECL_ARRBIG,
    D_DECL_ARRTYPE,
    D_DECL_TYPERED,
    D_DECL_BFTYPE,
    D_DECL_BFCONST,
    D_DECL_BFSIZE,
    D_DECL_INCOMPLETE,
    D_DECL_ENCONST,
    D_DECL_ENOFLOW,
    D_OFFSETOF_TYPE,
    D_OFFSETOF_BITFIELD,
    D_XLATE_SOU,
    D_XLATE_REDECL,
    D_XLATE_MEMB,
    D_XLATE_INCOMPAT,
    D_XLATE_NONE,
    D_XLATE_NOCONV,
    D_PRAGMA_DEPEND,
    // Provider definitions.
    D_PROV_PRDUP,
    D_PROV_PRARGLEN,
    D_PROV_PRARGTYPE,
}

/// A compile error: tag, optional line, message.
///
/// ```
/// # use dtrace_lang::{CompileError, Tag};
/// let e = CompileError::new(Tag::D_SYNTAX, 3, "syntax error near \";\"");
/// assert_eq!(e.to_string(), "line 3: syntax error near \";\"");
/// assert_eq!(e.render(true), "[D_SYNTAX] line 3: syntax error near \";\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// DTrace's tag for the error (`D_SYNTAX`), shown with `errtags`.
    pub tag: Tag,
    /// The line of the script, if the error has one.
    pub line: Option<u32>,
    /// The message, as DTrace words it.
    pub msg: String,
}

impl CompileError {
    /// An error at `line` (0: none).
    ///
    /// ```
    /// # use dtrace_lang::{CompileError, Tag};
    /// assert_eq!(CompileError::new(Tag::D_SYNTAX, 0, "x").line, None);
    /// ```
    pub fn new(tag: Tag, line: u32, msg: impl Into<String>) -> CompileError {
        CompileError {
            tag,
            line: if line == 0 { None } else { Some(line) },
            msg: msg.into(),
        }
    }

    /// An error with no line.
    ///
    /// ```
    /// # use dtrace_lang::{CompileError, Tag};
    /// assert_eq!(CompileError::no_line(Tag::D_SYNTAX, "x").to_string(), "x");
    /// ```
    pub fn no_line(tag: Tag, msg: impl Into<String>) -> CompileError {
        CompileError {
            tag,
            line: None,
            msg: msg.into(),
        }
    }

    /// The text after "dtrace: failed to compile script X: ", with the
    /// `[D_TAG] ` prefix when `errtags` is set.
    ///
    /// ```
    /// # use dtrace_lang::{CompileError, Tag};
    /// let e = CompileError::new(Tag::D_SYNTAX, 1, "syntax error");
    /// assert_eq!(e.render(false), "line 1: syntax error");
    /// ```
    pub fn render(&self, errtags: bool) -> String {
        self.render_from(errtags, true)
    }

    /// The message as DTrace words it for a program given on the command
    /// line (`-n`, `-P`, ...): no line number, since there is no file.
    ///
    /// ```
    /// # use dtrace_lang::{CompileError, Tag};
    /// let e = CompileError::new(Tag::D_SYNTAX, 1, "syntax error");
    /// assert_eq!(e.render_command_line(false), "syntax error");
    /// ```
    pub fn render_command_line(&self, errtags: bool) -> String {
        self.render_from(errtags, false)
    }

    fn render_from(&self, errtags: bool, file: bool) -> String {
        let mut s = String::new();
        if errtags {
            s.push_str(&format!("[{}] ", self.tag.name()));
        }
        match self.line {
            Some(l) if file => s.push_str(&format!("line {}: ", l)),
            _ => {}
        }
        s.push_str(&self.msg);
        s
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for CompileError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_with_and_without_tags() {
        let e = CompileError::new(Tag::D_SYNTAX, 3, "syntax error near \"}\"");
        assert_eq!(e.render(false), "line 3: syntax error near \"}\"");
        assert_eq!(e.render(true), "[D_SYNTAX] line 3: syntax error near \"}\"");
        let e = CompileError::no_line(Tag::D_PDESC_ZERO, "x");
        assert_eq!(e.render(false), "x");
    }
}
