<?php

namespace App\Models;

use Illuminate\Database\Eloquent\Model;

/** The demo's domain: a challenge with a title and a goal. */
final class Challenge extends Model
{
    protected $guarded = ['id'];
}
