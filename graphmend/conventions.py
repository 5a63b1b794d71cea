"""How rewritten code names graphmend's things.

Shared by the rules (which write these names), the runtime (which checks
for them) and diagnose (which recognises rewritten code).  It imports
nothing, so the runtime needs torch alone and ``graphmend fix`` no torch.
"""

#: The module rewritten code imports, and the name it binds it to.
RUNTIME_MODULE = "graphmend.runtime"
RUNTIME_ALIAS = "_graphmend"

#: Prefix of every variable a rule introduces (``_gm_cond_12``, ...).
GENERATED_PREFIX = "_gm_"
