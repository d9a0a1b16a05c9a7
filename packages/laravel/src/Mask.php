<?php

namespace Toolmark\Laravel;

/**
 * Masking before storage: card-number-like digit runs keep only their last four digits and
 * CVC-like codes are hidden, in every chat line, history entry and log context the package writes.
 */
final class Mask
{
    /** The text with card numbers reduced to `**** 4242` and `cvc 123` to `cvc ***`. */
    public static function text(string $text): string
    {
        $text = (string) preg_replace_callback(
            '/(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/',
            fn (array $m): string => '**** ' . substr((string) preg_replace('/\D/', '', $m[0]), -4),
            $text,
        );

        return (string) preg_replace('/\b(cvc2?|cvv2?|csc|cid|security code)(\W{0,3})(\d{3,4})\b/i', '$1$2***', $text);
    }

    /** Masks every string of a value, and replaces the value of cvc/cvv/csc/cid/security_code keys. */
    public static function value(mixed $value): mixed
    {
        if (is_string($value)) {
            return self::text($value);
        }
        if (! is_array($value)) {
            return $value;
        }
        $out = [];
        foreach ($value as $key => $item) {
            $sensitive = is_string($key) && preg_match('/^(cvc2?|cvv2?|csc|cid|security_?code)$/i', $key) === 1;
            $out[$key] = $sensitive && (is_string($item) || is_int($item)) ? '[redacted]' : self::value($item);
        }

        return $out;
    }
}
