# expect: forbidden
import engine.script
