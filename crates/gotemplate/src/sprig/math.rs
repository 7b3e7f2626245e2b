//! Sprig's integer math (int64 through cast) and float math (shopspring/decimal).

use super::conv::{to_f64, to_i64};
use super::{fixed, panic_err, var};
use crate::error::Error;
use crate::funcs::{Functions, Type};
use crate::value::Value;

use Type::{Any, Int};

fn int(v: i64) -> Result<Value, Error> {
    Ok(Value::Int(v))
}

fn float(v: f64) -> Result<Value, Error> {
    Ok(Value::Float(v))
}

/// A decimal as shopspring/decimal keeps it: an integer coefficient and a power of ten.
#[derive(Clone, Copy)]
struct Dec {
    c: i128,
    e: i32,
}

impl Dec {
    /// decimal.NewFromFloat: the shortest decimal that reads back as the float.
    fn from_f64(f: f64) -> Dec {
        if !f.is_finite() || f == 0.0 {
            return Dec { c: 0, e: 0 };
        }
        let s = format!("{:e}", f);
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let neg = mant.starts_with('-');
        let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
        let frac_len = mant.split_once('.').map(|(_, f)| f.len()).unwrap_or(0) as i32;
        let c: i128 = digits.parse().unwrap_or(0);
        Dec {
            c: if neg { -c } else { c },
            e: exp - frac_len,
        }
    }

    fn align(a: Dec, b: Dec) -> Option<(i128, i128, i32)> {
        let e = a.e.min(b.e);
        let sa = a.c.checked_mul(10i128.checked_pow((a.e - e) as u32)?)?;
        let sb = b.c.checked_mul(10i128.checked_pow((b.e - e) as u32)?)?;
        Some((sa, sb, e))
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.c, self.e).parse().unwrap_or(0.0)
    }
}

fn dec_op(a: &Value, rest: &[Value], op: char) -> Result<Value, Error> {
    let mut acc = Dec::from_f64(to_f64(a));
    for x in rest {
        let d = Dec::from_f64(to_f64(x));
        acc = match op {
            '+' | '-' => match Dec::align(acc, d) {
                Some((x, y, e)) => Dec {
                    c: if op == '+' { x + y } else { x - y },
                    e,
                },
                None => {
                    let v = if op == '+' {
                        acc.to_f64() + d.to_f64()
                    } else {
                        acc.to_f64() - d.to_f64()
                    };
                    Dec::from_f64(v)
                }
            },
            '*' => match acc.c.checked_mul(d.c) {
                Some(c) => Dec { c, e: acc.e + d.e },
                None => Dec::from_f64(acc.to_f64() * d.to_f64()),
            },
            _ => {
                if d.c == 0 {
                    return Err(panic_err("decimal division by 0"));
                }
                // shopspring divides to 16 digits after the point, rounding half away from 0.
                let q = acc.to_f64() / d.to_f64();
                let scaled = (q * 1e16).round() / 1e16;
                Dec::from_f64(scaled)
            }
        };
    }
    float(acc.to_f64())
}

/// Go's `math.Round`-free rounding Sprig does by hand.
fn round(a: &Value, p: i64, on: f64) -> f64 {
    let val = to_f64(a);
    let pow = 10f64.powf(p as f64);
    let digit = pow * val;
    let div = digit.fract();
    let r = if div >= on {
        digit.ceil()
    } else {
        digit.floor()
    };
    r / pow
}

pub(super) fn register(f: &mut Functions) {
    fixed(f, "add1", &[Any], |_, a| int(to_i64(&a[0]).wrapping_add(1)));
    var(f, "add", &[], Any, |_, a| {
        int(a.iter().fold(0i64, |s, x| s.wrapping_add(to_i64(x))))
    });
    fixed(f, "sub", &[Any, Any], |_, a| {
        int(to_i64(&a[0]).wrapping_sub(to_i64(&a[1])))
    });
    fixed(f, "div", &[Any, Any], |_, a| {
        let d = to_i64(&a[1]);
        if d == 0 {
            return Err(panic_err("runtime error: integer divide by zero"));
        }
        int(to_i64(&a[0]).wrapping_div(d))
    });
    fixed(f, "mod", &[Any, Any], |_, a| {
        let d = to_i64(&a[1]);
        if d == 0 {
            return Err(panic_err("runtime error: integer divide by zero"));
        }
        int(to_i64(&a[0]).wrapping_rem(d))
    });
    var(f, "mul", &[Any], Any, |_, a| {
        int(a[1..]
            .iter()
            .fold(to_i64(&a[0]), |s, x| s.wrapping_mul(to_i64(x))))
    });
    for name in ["max", "biggest"] {
        var(f, name, &[Any], Any, |_, a| {
            int(a[1..].iter().map(to_i64).fold(to_i64(&a[0]), i64::max))
        });
    }
    var(f, "min", &[Any], Any, |_, a| {
        int(a[1..].iter().map(to_i64).fold(to_i64(&a[0]), i64::min))
    });
    var(f, "maxf", &[Any], Any, |_, a| {
        float(a[1..].iter().map(to_f64).fold(to_f64(&a[0]), f64::max))
    });
    var(f, "minf", &[Any], Any, |_, a| {
        float(a[1..].iter().map(to_f64).fold(to_f64(&a[0]), f64::min))
    });
    fixed(f, "ceil", &[Any], |_, a| float(to_f64(&a[0]).ceil()));
    fixed(f, "floor", &[Any], |_, a| float(to_f64(&a[0]).floor()));
    var(f, "round", &[Any, Int], Type::Float, |_, a| {
        let p = match &a[1] {
            Value::Int(i) => *i,
            _ => 0,
        };
        let on = a.get(2).map(to_f64).unwrap_or(0.5);
        float(round(&a[0], p, on))
    });
    fixed(f, "add1f", &[Any], |_, a| {
        dec_op(&a[0], &[Value::Int(1)], '+')
    });
    var(f, "addf", &[], Any, |_, a| {
        if a.is_empty() {
            return float(0.0);
        }
        dec_op(&a[0], &a[1..], '+')
    });
    var(f, "subf", &[Any], Any, |_, a| dec_op(&a[0], &a[1..], '-'));
    var(f, "mulf", &[Any], Any, |_, a| dec_op(&a[0], &a[1..], '*'));
    var(f, "divf", &[Any], Any, |_, a| dec_op(&a[0], &a[1..], '/'));
    fixed(f, "int64", &[Any], |_, a| int(to_i64(&a[0])));
    fixed(f, "int", &[Any], |_, a| int(to_i64(&a[0])));
    fixed(f, "float64", &[Any], |_, a| float(to_f64(&a[0])));
    fixed(f, "toDecimal", &[Any], |_, a| {
        let s = crate::gofmt::sprint_value(&a[0]);
        int(i64::from_str_radix(s.trim_start_matches('+'), 8).unwrap_or(0))
    });
    fixed(f, "randInt", &[Int, Int], |_, a| {
        let (lo, hi) = match (&a[0], &a[1]) {
            (Value::Int(x), Value::Int(y)) => (*x, *y),
            _ => (0, 0),
        };
        if hi <= lo {
            return Err(panic_err("invalid argument to Intn"));
        }
        let span = (hi - lo) as u64;
        int(lo + (super::crypto::random_u64() % span) as i64)
    });
}
