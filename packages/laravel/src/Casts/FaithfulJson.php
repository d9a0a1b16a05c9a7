<?php

namespace Toolmark\Laravel\Casts;

use Illuminate\Contracts\Database\Eloquent\CastsAttributes;
use Toolmark\Laravel\Json;
use Toolmark\Laravel\Llm;

/**
 * A JSON column read with Json::decode() (an empty object stays `{}`), written with Llm::json(): like
 * Eloquent's `array` cast, without turning `{}` into `[]` on the way back.
 *
 * @implements CastsAttributes<mixed, mixed>
 */
final class FaithfulJson implements CastsAttributes
{
    public function get($model, string $key, $value, array $attributes): mixed
    {
        return is_string($value) ? Json::decode($value) : null;
    }

    public function set($model, string $key, $value, array $attributes): ?string
    {
        return $value === null ? null : Llm::json($value);
    }
}
