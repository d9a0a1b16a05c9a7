<?php

namespace Toolmark\Laravel;

/**
 * JSON as PHP arrays, without losing what arrays cannot say. A JSON object becomes an associative
 * array, except an empty one and one whose keys are 0, 1, 2, …: PHP would turn those into `[]` or a
 * list, so they stay `stdClass` (json_encode writes them back as the same objects). So `{}` in a page's
 * result or a model's tool input reaches the other side as `{}`, and `{"0": "a"}` as `{"0": "a"}`. A number
 * too large for a double (`1e400`, which json_decode reads as INF) becomes null, as in @toolmark/server.
 */
final class Json
{
    /** Decodes `$json` faithfully (see the class); null when it is not JSON. */
    public static function decode(string $json, int $depth = 512): mixed
    {
        return self::fromObject(json_decode($json, false, $depth));
    }

    /** A value json_decode made with objects (`stdClass`), turned as {@see decode()} turns it. */
    public static function fromObject(mixed $value): mixed
    {
        if (is_array($value)) {
            return array_map(self::fromObject(...), $value);
        }
        if (is_float($value) && ! is_finite($value)) {
            return null; // 1e400: too large for a double; JSON.stringify writes null, and so does every server
        }
        if (! $value instanceof \stdClass) {
            return $value;
        }
        $fields = [];
        foreach (get_object_vars($value) as $key => $item) {
            $fields[$key] = self::fromObject($item);
        }
        // An empty object, or one keyed 0, 1, 2, …: an array would be written back as a list.
        if ($fields === [] || array_is_list($fields)) {
            return (object) $fields;
        }

        return $fields;
    }
}
