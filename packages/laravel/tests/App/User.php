<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Foundation\Auth\User as Authenticatable;

/** TEST APP: the app's user model. */
final class User extends Authenticatable
{
    protected $guarded = ['id'];
}
